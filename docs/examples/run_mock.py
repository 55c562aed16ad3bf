"""Start agent-platform-mock from Python with the standard library, use it, stop it.

    python3 run_mock.py            # runs node_modules/.bin/agent-platform-mock (npm install -D agent-platform-mock)
    MOCK_COMMAND="node dist/cli.js" python3 run_mock.py

The mock is started from its bin, not through `npx`: then the process Python holds is the mock
itself, and `wait()` returns the mock's exit code (0 after SIGTERM). Through `npx`, Python would
hold npm: `terminate()` stops npm (Python reports -15, killed by the signal) and the mock exits by
itself a moment later, as its parent is gone.

The mock prints `Listening on http://HOST:PORT` on stdout when it is ready; read lines until then.
`--exit-with-parent` makes it exit if this Python process dies without stopping it (a crash, a
killed CI job), so no server is left holding its port.
"""
import json
import os
import shlex
import subprocess
import urllib.request

command = shlex.split(os.environ.get("MOCK_COMMAND", "node_modules/.bin/agent-platform-mock"))


def start_mock(*args):
    proc = subprocess.Popen(
        [*command, "--port", "0", "--seed", "42", "--quiet", "--exit-with-parent", *args],
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in proc.stdout:
        if line.startswith("Listening on "):
            return proc, line.split()[-1]
    raise RuntimeError(f"the mock exited with {proc.wait()} before it was ready")


def stop_mock(proc):
    proc.terminate()  # SIGTERM: the mock closes its port and exits 0
    return proc.wait(timeout=10)


proc, url = start_mock()
try:
    with urllib.request.urlopen(f"{url}/ok") as res:
        print("ok:", json.load(res)["ok"])
    body = json.dumps({"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": "hi"}]}}).encode()
    req = urllib.request.Request(f"{url}/runs/wait", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        print("run answered:", res.status)
    with urllib.request.urlopen(f"{url}/_mock/requests?path=/runs") as res:
        print("requests seen:", json.load(res)["count"])
finally:
    print("exit code:", stop_mock(proc))
