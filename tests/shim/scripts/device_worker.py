"""A worker given its device in its running process, as Ray's prestarted workers are: it starts a thread,
then sets CUDA_VISIBLE_DEVICES in os.environ (putenv) to each DEVICE in turn, and after each appends one JSON
line to OUT: {"device", "cpus" (the main thread's Cpus_allowed_list), "thread" (the first thread's)}.

Usage: device_worker.py OUT DEVICE...
"""
import json
import os
import sys
import threading

from late_worker import allowed, started_thread  # beside it


def main():
    out, devices = sys.argv[1], sys.argv[2:]
    thread, tid, go = started_thread()
    with open(out, "a") as f:
        for device in devices:
            os.environ["CUDA_VISIBLE_DEVICES"] = device
            line = {"device": device, "cpus": allowed(threading.get_native_id()),
                    "thread": allowed(tid)}
            f.write(json.dumps(line) + "\n")
    go.set()
    thread.join()


if __name__ == "__main__":
    main()
