// SPDX-License-Identifier: GPL-2.0
/*
 * pidns-cpu: the pid namespace tree of an LTTng kernel trace, and the CPU
 * time spent in each pid namespace.
 *
 * Reads the trace with libbabeltrace2: a graph of source.ctf.fs, the
 * muxer of the utils plugin (events in time order across CPUs) and a
 * simple sink of ours.  It needs these events:
 *
 *   lttng_statedump_process_pid_ns  a task's pid namespace at each level,
 *                                   innermost first, for the tasks that
 *                                   exist when the session starts
 *   sched_process_fork              the child's pid namespace
 *                                   (child_ns_dev:child_ns_inum), which
 *                                   need not be its parent's: a task that
 *                                   setns(2)'d into a pid namespace forks
 *                                   children into it
 *   sched_switch                    who ran on each CPU, and how long
 *
 * A namespace is named "dev:ino", dev being the device number as stat(2)
 * gives st_dev (ns_dev, new_encode_dev() encoded) and ino the inode
 * number, then "/id" where the events carry the namespace's 64-bit id
 * (ns_id, parent_ns_id, child_ns_id: lttng-modules on Linux 6.18 and
 * later).  With ids, namespaces are told apart by id: nsfs reuses the
 * inode number of a freed namespace, so two namespaces of one trace can
 * share dev:ino.
 *
 * A task's CPU time is the time from a sched_switch that puts it
 * on a CPU to the next sched_switch on that CPU; it goes to the task's
 * pid namespace ("cpu"), and to that namespace and every namespace it is
 * nested in ("nested").  Time before the first sched_switch of a CPU,
 * and after its last, is not counted.
 *
 * It prints the tree, one namespace a line, indented under its parent:
 *
 *   DEV:INO[/ID] level L cpu MS ms nested MS ms tasks N: TID/VTID ...
 *
 * (VTID: the task's tid in that namespace), then the tasks that ran 1 ms
 * or more with their namespace, the idle time, the time of tasks whose
 * namespace the trace does not give, and the count of lost events.
 *
 * usage: pidns-cpu TRACE   (a CTF trace folder, or an LTTng session's
 *                           output folder: its kernel/ trace is read)
 */
#include <babeltrace2/babeltrace.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pidns {
	uint64_t dev, ino;
	uint64_t id;		/* ns_id; 0: the trace has no ids */
	int level;		/* -1: not known */
	int parent;		/* index in nss[], -1: not known */
	uint64_t cpu;		/* ns of CPU time of its own tasks */
	uint64_t nested;	/* ... of its tasks and those nested in it */
};

struct task {
	int64_t tid;		/* 0: free slot (tid 0 is the idle task) */
	int ns;			/* index in nss[], -1: not known yet */
	int64_t vtid;		/* its tid in its pid namespace */
	uint64_t pending;	/* CPU time run before its ns was known */
	uint64_t cpu;		/* all its CPU time */
};

struct cpu {
	int known;		/* a sched_switch was seen on it */
	int64_t since;		/* time of that last sched_switch, ns */
};

static struct pidns *nss;
static int nr_nss;
static struct task *tasks;	/* hash table on tid, open addressing */
static size_t tasks_size, nr_tasks;
static struct cpu *cpus;
static size_t nr_cpus;
static uint64_t idle_time, lost_events;

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("pidns-cpu");
		exit(1);
	}
	return p;
}

/* ns_get: the index of namespace DEV:INO (ID, if not 0) in nss[], added
 * if new.
 */
static int ns_get(uint64_t dev, uint64_t ino, uint64_t id)
{
	int i;

	for (i = 0; i < nr_nss; i++)
		if (id ? nss[i].id == id :
		    !nss[i].id && nss[i].dev == dev && nss[i].ino == ino)
			return i;
	nss = xrealloc(nss, (nr_nss + 1) * sizeof(*nss));
	nss[nr_nss] = (struct pidns){ .dev = dev, .ino = ino, .id = id,
				      .level = -1, .parent = -1 };
	return nr_nss++;
}

/* ns_link: CHILD's level is known; PARENT contains it if one level up.
 * Any pid namespace a task can enter or create is nested in its own, so
 * a namespace one level below a task's is a child of the task's.
 */
static void ns_link(int child, int level, int parent)
{
	nss[child].level = level;
	if (parent >= 0 && parent != child && nss[parent].level == level - 1)
		nss[child].parent = parent;
}

static struct task *task_slot(struct task *table, size_t size, int64_t tid)
{
	size_t i = (size_t)tid * 2654435761u & (size - 1);

	while (table[i].tid && table[i].tid != tid)
		i = (i + 1) & (size - 1);
	return &table[i];
}

/* task_get: the task TID, added (namespace unknown) if new. */
static struct task *task_get(int64_t tid)
{
	struct task *t, *old = tasks;
	size_t i, old_size = tasks_size;

	if (2 * (nr_tasks + 1) > tasks_size) {
		tasks_size = tasks_size ? 2 * tasks_size : 1024;
		tasks = calloc(tasks_size, sizeof(*tasks));
		if (!tasks) {
			perror("pidns-cpu");
			exit(1);
		}
		for (i = 0; i < old_size; i++)
			if (old[i].tid)
				*task_slot(tasks, tasks_size, old[i].tid) = old[i];
		free(old);
	}
	t = task_slot(tasks, tasks_size, tid);
	if (!t->tid) {
		*t = (struct task){ .tid = tid, .ns = -1 };
		nr_tasks++;
	}
	return t;
}

/* task_set_ns: TID is VTID in namespace NS; CPU time run so far goes there. */
static void task_set_ns(int64_t tid, int64_t vtid, int ns)
{
	struct task *t = task_get(tid);

	t->ns = ns;
	t->vtid = vtid;
	nss[ns].cpu += t->pending;
	t->pending = 0;
}

static void run_time(int64_t tid, uint64_t ns)
{
	struct task *t;

	if (tid == 0) {
		idle_time += ns;
		return;
	}
	t = task_get(tid);
	t->cpu += ns;
	if (t->ns >= 0)
		nss[t->ns].cpu += ns;
	else
		t->pending += ns;
}

static const bt_field *member(const bt_field *s, const char *name)
{
	const bt_field *f = s ? bt_field_structure_borrow_member_field_by_name_const(s, name) : NULL;

	if (!f) {
		fprintf(stderr, "pidns-cpu: no field %s\n", name);
		exit(1);
	}
	return f;
}

/* integer: the value of an integer (or enumeration) field. */
static int64_t integer(const bt_field *f)
{
	bt_field_class_type type = bt_field_get_class_type(f);

	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(f);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return (int64_t)bt_field_integer_unsigned_get_value(f);
	fprintf(stderr, "pidns-cpu: a field is not an integer\n");
	exit(1);
}

static int64_t int_member(const bt_field *s, const char *name)
{
	return integer(member(s, name));
}

/* ns_member: namespace PREFIXns_{dev,inum,id} of S (no id: 0). */
static int ns_member(const bt_field *s, const char *prefix)
{
	char dev[32], ino[32], id[32];
	const bt_field *f;

	snprintf(dev, sizeof(dev), "%sns_dev", prefix);
	snprintf(ino, sizeof(ino), "%sns_inum", prefix);
	snprintf(id, sizeof(id), "%sns_id", prefix);
	f = bt_field_structure_borrow_member_field_by_name_const(s, id);
	return ns_get(int_member(s, dev), int_member(s, ino),
		      f ? (uint64_t)integer(f) : 0);
}

/* The last pid_ns statedump event: the next one of the same task, one
 * level up, names the parent of its namespace.
 */
static int64_t last_tid = -1;
static int last_ns, last_level;

static void statedump_pid_ns(const bt_field *p)
{
	int64_t tid = int_member(p, "tid");
	int level = (int)int_member(p, "ns_level");
	int ns = ns_member(p, "");

	nss[ns].level = level;
	if (tid == last_tid && level == last_level - 1)
		nss[last_ns].parent = ns;
	else
		task_set_ns(tid, int_member(p, "vtid"), ns);
	last_tid = tid;
	last_ns = ns;
	last_level = level;
}

static void process_fork(const bt_field *p)
{
	const bt_field *vtids = member(p, "vtids");
	uint64_t n = bt_field_array_get_length(vtids);
	int child = ns_member(p, "child_");
	int parent = ns_member(p, "parent_");

	if (!n)
		return;
	ns_link(child, (int)n - 1, parent);
	task_set_ns(int_member(p, "child_tid"),
		    integer(bt_field_array_borrow_element_field_by_index_const(vtids, n - 1)),
		    child);
}

static void sched_switch(const bt_message *msg, const bt_event *ev,
			 const bt_field *p)
{
	const bt_packet *pkt = bt_event_borrow_packet_const(ev);
	const bt_clock_snapshot *cs;
	uint64_t cpu;
	int64_t now;

	cpu = int_member(pkt ? bt_packet_borrow_context_field_const(pkt) : NULL,
			 "cpu_id");
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &now)) {
		fprintf(stderr, "pidns-cpu: a time out of range\n");
		exit(1);
	}
	if (cpu >= nr_cpus) {
		cpus = xrealloc(cpus, (cpu + 1) * sizeof(*cpus));
		memset(cpus + nr_cpus, 0, (cpu + 1 - nr_cpus) * sizeof(*cpus));
		nr_cpus = cpu + 1;
	}
	if (cpus[cpu].known && now > cpus[cpu].since)
		run_time(int_member(p, "prev_tid"), now - cpus[cpu].since);
	cpus[cpu].known = 1;
	cpus[cpu].since = now;
}

static void message(const bt_message *msg)
{
	const bt_event *ev;
	const bt_field *p;
	const char *name;
	bt_property_availability avail;
	uint64_t count;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		avail = bt_message_discarded_events_get_count(msg, &count);
		lost_events += avail == BT_PROPERTY_AVAILABILITY_AVAILABLE ? count : 1;
		return;
	case BT_MESSAGE_TYPE_EVENT:
		break;
	default:
		return;
	}
	ev = bt_message_event_borrow_event_const(msg);
	name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
	p = bt_event_borrow_payload_field_const(ev);
	if (!name)
		return;
	if (!strcmp(name, "sched_switch"))
		sched_switch(msg, ev, p);
	else if (!strcmp(name, "sched_process_fork"))
		process_fork(p);
	else if (!strcmp(name, "lttng_statedump_process_pid_ns"))
		statedump_pid_ns(p);
}

static bt_graph_simple_sink_component_consume_func_status
sink_consume(bt_message_iterator *it, void *data __attribute__((unused)))
{
	bt_message_array_const msgs;
	uint64_t count, i;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < count; i++) {
		message(msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static void fail(const char *what)
{
	fprintf(stderr, "pidns-cpu: %s failed\n", what);
	exit(1);
}

static const bt_plugin *plugin(const char *name)
{
	const bt_plugin *p;

	/* Another plugin that fails to load is not our business. */
	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &p) != BT_PLUGIN_FIND_STATUS_OK)
		fail(name);
	return p;
}

/* read_trace: every message of the CTF trace in DIR, in time order. */
static void read_trace(const char *dir)
{
	const bt_plugin *ctf = plugin("ctf"), *utils = plugin("utils");
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_value *params, *inputs;
	bt_graph *graph;
	bt_graph_run_status status;
	uint64_t i, ports;

	graph = bt_graph_create(0);
	params = bt_value_map_create();
	if (!graph || !params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir))
		fail("making the graph");
	if (bt_graph_add_source_component(graph,
			bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"),
			"source", params, BT_LOGGING_LEVEL_WARNING, &src) ||
	    bt_graph_add_filter_component(graph,
			bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
			"muxer", NULL, BT_LOGGING_LEVEL_WARNING, &mux) ||
	    bt_graph_add_simple_sink_component(graph, "pidns-cpu", NULL,
			sink_consume, NULL, NULL, &sink))
		fail("adding components (is it a CTF trace?)");
	/* The muxer adds an input port each time one is connected. */
	ports = bt_component_source_get_output_port_count(src);
	for (i = 0; i < ports; i++)
		if (bt_graph_connect_ports(graph,
				bt_component_source_borrow_output_port_by_index_const(src, i),
				bt_component_filter_borrow_input_port_by_index_const(mux, i),
				NULL))
			fail("connecting the source");
	if (bt_graph_connect_ports(graph,
			bt_component_filter_borrow_output_port_by_index_const(mux, 0),
			bt_component_sink_borrow_input_port_by_index_const(sink, 0),
			NULL))
		fail("connecting the sink");
	do
		status = bt_graph_run(graph);
	while (status == BT_GRAPH_RUN_STATUS_AGAIN);
	if (status != BT_GRAPH_RUN_STATUS_OK)
		fail("reading the trace");
	bt_value_put_ref(params);
	bt_graph_put_ref(graph);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
}

/* The tasks, in tid order, once the trace is read. */
static struct task *sorted;

static int by_tid(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_cpu(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return (x->cpu < y->cpu) - (x->cpu > y->cpu);
}

/* print_name: "dev:ino", and "/id" if the trace gave one. */
static void print_name(int ns)
{
	printf("%" PRIu64 ":%" PRIu64, nss[ns].dev, nss[ns].ino);
	if (nss[ns].id)
		printf("/%" PRIu64, nss[ns].id);
}

static void print_ns(int ns, int depth)
{
	size_t i;
	int n = 0, c;

	for (i = 0; i < nr_tasks; i++)
		n += sorted[i].ns == ns;
	printf("%*s", 2 * depth, "");
	print_name(ns);
	printf(" level ");
	if (nss[ns].level >= 0)
		printf("%d", nss[ns].level);
	else
		printf("?");
	printf(" cpu %.3f ms nested %.3f ms tasks %d:", nss[ns].cpu / 1e6,
	       nss[ns].nested / 1e6, n);
	for (i = 0; i < nr_tasks; i++)
		if (sorted[i].ns == ns)
			printf(" %" PRId64 "/%" PRId64, sorted[i].tid, sorted[i].vtid);
	printf("\n");
	for (c = 0; c < nr_nss; c++)
		if (nss[c].parent == ns)
			print_ns(c, depth + 1);
}

/* print_busiest: the tasks that ran 1 ms or more, the busiest first. */
static void print_busiest(void)
{
	size_t i;

	qsort(sorted, nr_tasks, sizeof(*sorted), by_cpu);
	printf("tasks that ran 1 ms or more (tid, pid namespace, CPU time):\n");
	for (i = 0; i < nr_tasks && sorted[i].cpu >= 1000000; i++) {
		printf("%" PRId64 " ", sorted[i].tid);
		if (sorted[i].ns >= 0)
			print_name(sorted[i].ns);
		else
			printf("?");
		printf(" %.3f ms\n", sorted[i].cpu / 1e6);
	}
}

int main(int argc, char **argv)
{
	char kernel[4096];
	uint64_t unattributed = 0;
	struct stat st;
	size_t i, n = 0;
	int ns, up;

	if (argc != 2) {
		fprintf(stderr, "usage: pidns-cpu TRACE\n");
		return 1;
	}
	snprintf(kernel, sizeof(kernel), "%s/kernel", argv[1]);
	read_trace(stat(kernel, &st) == 0 ? kernel : argv[1]);

	sorted = xrealloc(NULL, (nr_tasks + 1) * sizeof(*sorted));
	for (i = 0; i < tasks_size; i++)
		if (tasks[i].tid)
			sorted[n++] = tasks[i];
	qsort(sorted, nr_tasks, sizeof(*sorted), by_tid);
	for (i = 0; i < nr_tasks; i++)
		unattributed += sorted[i].pending;
	for (ns = 0; ns < nr_nss; ns++)
		for (up = ns; up >= 0; up = nss[up].parent)
			nss[up].nested += nss[ns].cpu;

	printf("pid namespaces (dev:ino[/id]), their CPU time, and their tasks (tid/vtid):\n");
	for (ns = 0; ns < nr_nss; ns++)
		if (nss[ns].parent < 0)
			print_ns(ns, 0);
	print_busiest();
	printf("idle: %.3f ms\n", idle_time / 1e6);
	printf("unattributed: %.3f ms (tasks whose pid namespace the trace does not give)\n",
	       unattributed / 1e6);
	printf("lost events: %" PRIu64 "\n", lost_events);
	return 0;
}
