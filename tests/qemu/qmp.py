#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one QMP command to a guest's monitor socket and print the answer.

Usage: qmp.py SOCKET COMMAND ['{"json": "arguments"}']
Exits 0 on a "return", 1 on an "error" (printed), 2 when the socket fails.
"""
import json
import socket
import sys


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, command = sys.argv[1], sys.argv[2]
    args = json.loads(sys.argv[3]) if len(sys.argv) == 4 else {}
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(path)
    except OSError as err:
        print(f"qmp: {path}: {err}", file=sys.stderr)
        return 2
    stream = sock.makefile("rw")
    json.loads(stream.readline())  # the greeting
    for cmd, arguments in (("qmp_capabilities", {}), (command, args)):
        stream.write(json.dumps({"execute": cmd, "arguments": arguments}) + "\n")
        stream.flush()
        while True:
            answer = json.loads(stream.readline())
            if "event" not in answer:
                break
        if "error" in answer:
            print(f"qmp: {cmd}: {answer['error']}", file=sys.stderr)
            return 1
    print(json.dumps(answer["return"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
