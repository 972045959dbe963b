#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The mail software of scripts/rehearse-send, on 127.0.0.1: an SMTP
server (aiosmtpd, Debian's python3-aiosmtpd) that hands every message to
public-inbox-mda, as a list's MTA does, and the checks of what the inbox
then serves over HTTP (public-inbox-httpd) against the files sent.

  smtpd PORTFILE ADDRESS [--drop MSGID] [--mangle MSGID]
      serve SMTP on a free port of 127.0.0.1 (written to PORTFILE) until
      SIGTERM; each message goes to the inbox of ADDRESS (its
      public-inbox-mda, PI_CONFIG in the environment).  --drop: the
      message MSGID is answered 250 and lost; --mangle: its patch is
      damaged as a mail client damages one (trailing blanks stripped,
      its longest added line re-wrapped) before delivery.  Planted
      defects, for the rehearsal's own test.
  free-port
      print a TCP port of 127.0.0.1 that nothing listens on.
  wait-http URL
      wait (30 s at most) until URL answers.
  arrived URL FILE...
      every FILE's Message-ID is in the inbox at URL exactly once.
  threaded URL FILE...
      every patch mail replies to the cover letter (the FILE named
      *0000-*), In-Reply-To and References; a lone patch starts its
      thread.
  headers URL LIST FILE...
      what the inbox serves of each FILE: From, Subject, Message-ID as
      sent, To as the file's with LIST first (git send-email --to), Cc
      as the file's, and the body (decoded) byte for byte.

The checks print what is wrong, one line each, and exit 1 if anything
is."""

import asyncio
import email
import email.policy
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

POLICY = email.policy.default


def msgid_of(msg):
    """The Message-ID of msg without its angle brackets."""
    return (msg.get("Message-ID") or "").strip().strip("<>")


def mangle(raw):
    """raw (bytes, LF) as a mail client that re-wraps long lines and
    strips trailing blanks sends it: the longest added line of the patch
    cut at a blank near its middle."""
    head, sep, body = raw.partition(b"\n\n")
    lines = [re.sub(rb"[ \t]+$", b"", line) for line in body.split(b"\n")]
    added = [i for i, line in enumerate(lines)
             if line.startswith(b"+") and not line.startswith(b"+++") and b" " in line[1:].strip()]
    if added:
        i = max(added, key=lambda k: len(lines[k]))
        line = lines[i]
        cut = line.find(b" ", len(line) // 2)
        if cut < 0:
            cut = line.rfind(b" ")
        lines[i:i + 1] = [line[:cut], line[cut + 1:]]
    return head + sep + b"\n".join(lines)


class Handler:
    """Each message: LF line ends (an MTA's local delivery), a planted
    defect if it is the one, then public-inbox-mda.  A delivery that
    fails is answered 451, so that git send-email says so."""

    def __init__(self, address, drop, mangled):
        self.address = address
        self.drop = drop
        self.mangled = mangled

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content.replace(b"\r\n", b"\n")
        mid = msgid_of(email.message_from_bytes(raw, policy=POLICY))
        if mid and mid == self.drop:
            print("smtpd: dropped <%s> (planted)" % mid, file=sys.stderr, flush=True)
            return "250 OK"
        if mid and mid == self.mangled:
            raw = mangle(raw)
            print("smtpd: mangled <%s> (planted)" % mid, file=sys.stderr, flush=True)
        env = dict(os.environ, ORIGINAL_RECIPIENT=self.address)
        proc = await asyncio.create_subprocess_exec(
            "public-inbox-mda", stdin=subprocess.PIPE, env=env)
        await proc.communicate(raw)
        if proc.returncode != 0:
            print("smtpd: public-inbox-mda failed on <%s> (status %d)" % (mid, proc.returncode),
                  file=sys.stderr, flush=True)
            return "451 delivery to the inbox failed"
        print("smtpd: delivered <%s> from %s to %d recipients" %
              (mid, envelope.mail_from, len(envelope.rcpt_tos)), file=sys.stderr, flush=True)
        return "250 OK"


async def smtpd(portfile, address, drop, mangled):
    from aiosmtpd.smtp import SMTP
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    handler = Handler(address, drop, mangled)
    server = await loop.create_server(lambda: SMTP(handler, hostname="rehearsal.example.invalid"),
                                      "127.0.0.1", 0)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % server.sockets[0].getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    await stop
    server.close()
    await server.wait_closed()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    """The body at url, or None for a 404."""
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.read()
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise


def raw_messages(url, mid):
    """The messages the inbox at url holds under Message-ID mid (its
    /MSGID/raw: an mboxrd of them all)."""
    data = get("%s/%s/raw" % (url, urllib.parse.quote(mid, safe="@")))
    if data is None:
        return []
    msgs, cur = [], None
    for line in data.split(b"\n"):
        if line.startswith(b"From mboxrd@z "):
            cur = []
            msgs.append(cur)
            continue
        if cur is not None:
            cur.append(re.sub(rb"^>(>*From )", rb"\1", line))
    return [email.message_from_bytes(b"\n".join(m).rstrip(b"\n") + b"\n", policy=POLICY)
            for m in msgs]


def read(path):
    with open(path, "rb") as f:
        return email.message_from_bytes(f.read().replace(b"\r\n", b"\n"), policy=POLICY)


def addresses(msg, name):
    """The (name, address) pairs of msg's header name, decoded."""
    h = msg.get(name)
    return [(a.display_name, a.addr_spec) for a in h.addresses] if h is not None else []


def body(msg):
    payload = msg.get_payload(decode=True)
    return payload.rstrip(b"\n") if payload is not None else b""


def is_cover(path):
    return re.search(r"(^|-)0000-", os.path.basename(path)) is not None


def check_arrived(url, files):
    bad = []
    for path in files:
        mid = msgid_of(read(path))
        n = len(raw_messages(url, mid))
        if n != 1:
            bad.append("%s: <%s> is in the inbox %d times" % (os.path.basename(path), mid, n))
    return bad


def check_threaded(url, files):
    bad = []
    covers = [p for p in files if is_cover(p)]
    cover = msgid_of(read(covers[0])) if covers else None
    for path in files:
        got = raw_messages(url, msgid_of(read(path)))
        if not got:
            bad.append("%s: not in the inbox" % os.path.basename(path))
            continue
        irt = (got[0].get("In-Reply-To") or "").strip()
        refs = (got[0].get("References") or "").split()
        if path in covers or cover is None:
            if irt or refs:
                bad.append("%s: starts no thread (In-Reply-To: %s)" % (os.path.basename(path), irt))
        elif irt != "<%s>" % cover or "<%s>" % cover not in refs:
            bad.append("%s: In-Reply-To %s, References %s: not the cover letter <%s>" %
                       (os.path.basename(path), irt or "-", " ".join(refs) or "-", cover))
    return bad


def check_headers(url, lst, files):
    bad = []
    for path in files:
        sent = read(path)
        name = os.path.basename(path)
        got = raw_messages(url, msgid_of(sent))
        if not got:
            bad.append("%s: not in the inbox" % name)
            continue
        got = got[0]
        want = {"From": addresses(sent, "From"),
                "To": [("", lst)] + addresses(sent, "To"),
                "Cc": addresses(sent, "Cc")}
        for h, pairs in want.items():
            if addresses(got, h) != pairs:
                bad.append("%s: %s: %s, not %s" % (name, h, addresses(got, h), pairs))
        for h in ("Subject", "Message-ID"):
            if str(got.get(h)) != str(sent.get(h)):
                bad.append("%s: %s: %r, not %r" % (name, h, str(got.get(h)), str(sent.get(h))))
        if body(got) != body(sent):
            a, b = body(sent).split(b"\n"), body(got).split(b"\n")
            i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            bad.append("%s: the body differs from line %d on: %r became %r" %
                       (name, i + 1, a[i] if i < len(a) else b"(end)", b[i] if i < len(b) else b"(end)"))
    return bad


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    cmd, args = argv[1], argv[2:]
    if cmd == "smtpd":
        drop = mangled = None
        while len(args) > 2:
            opt, value = args.pop(2), args.pop(2)
            if opt == "--drop":
                drop = value
            elif opt == "--mangle":
                mangled = value
            else:
                raise SystemExit("smtpd: unknown option %s" % opt)
        asyncio.run(smtpd(args[0], args[1], drop, mangled))
        return 0
    if cmd == "free-port":
        print(free_port())
        return 0
    if cmd == "wait-http":
        for _ in range(300):
            try:
                get(args[0])
                return 0
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        print("%s: no answer in 30 s" % args[0])
        return 1
    if cmd == "arrived":
        bad = check_arrived(args[0], args[1:])
    elif cmd == "threaded":
        bad = check_threaded(args[0], args[1:])
    elif cmd == "headers":
        bad = check_headers(args[0], args[1], args[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 1
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
