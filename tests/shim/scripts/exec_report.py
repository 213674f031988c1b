"""torchrun script entrypoint: replaces itself with the program given (exec_report.py PROGRAM ARGS...), so the
rank's own child (PROGRAM) shows the binding it inherited from the rank."""
import os
import sys

os.execv(sys.argv[1], sys.argv[1:])
