"""A judge for the tests, speaking the JSON-lines protocol: a claim is asserted when its
text (lower case, without a final full stop) occurs in the text; an answer declines when it
says "don't know"; statements are sentences. STUB_LOG names a file that gets one line per
request (to count calls), STUB_PIDS one with the process id of the copy that answered each
request, STUB_DELAY the seconds to wait before each answer; STUB_MODE makes it misbehave:
crash, hang, garbage, wrong-id, no-verdict, or error:TEXT (an error answer for claims
containing TEXT), nosplit."""

import json
import os
import sys
import time

mode = os.environ.get("STUB_MODE", "")
log = os.environ.get("STUB_LOG")
pids = os.environ.get("STUB_PIDS")
delay = float(os.environ.get("STUB_DELAY", "0"))


def norm(text):
    return " ".join(text.lower().replace(".", " ").split())


for line in sys.stdin:
    request = json.loads(line)
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(request) + "\n")
    if pids:
        with open(pids, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    time.sleep(delay)
    answer = {"id": request["id"]}
    if mode == "crash":
        sys.stderr.write("stub judge: out of credits\n")
        sys.exit(3)
    if mode == "hang":
        time.sleep(60)
    if mode == "garbage":
        print("Verdict: YES!!", flush=True)
        continue
    if mode == "wrong-id":
        answer["id"] = request["id"] + 100
    op = request["op"]
    claim = request.get("claim", "")
    if mode.startswith("error:") and mode[6:] in claim:
        answer["error"] = "content filter"
    elif op == "entails":
        if mode == "no-verdict":
            answer["verdikt"] = True
        else:
            answer["verdict"] = "yes" if norm(claim) in norm(request["text"]) else "no"
            answer["tokens"] = 10
            answer["cost"] = 0.001
    elif op == "refuses":
        answer["verdict"] = "don't know" in request["text"].lower()
    elif op == "statements":
        if mode == "nosplit":
            answer["unsupported"] = True
        else:
            parts = [p.strip() for p in request["text"].split(". ") if p.strip()]
            answer["statements"] = parts
    print(json.dumps(answer), flush=True)
