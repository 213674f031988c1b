#!/usr/bin/python3
"""torchrun for Debian's python3-torch 1.13 on Python 3.11: same arguments as `torchrun`.

Workaround: torch 1.13's Std.from_str finds a value by iterating the IntFlag, and since Python 3.11 iterating
an IntFlag skips its zero member (Std.NONE), so "0" maps to None and torchrun crashes in to_map.
"""
import re
import sys

from torch.distributed.elastic.multiprocessing import api


def _from_str(cls, vm):
    """Std.from_str with the value looked up by construction (Std(int)) instead of by iteration."""
    if re.match(api._VALUE_REGEX, vm):
        return cls(int(vm))
    if re.match(api._MAPPING_REGEX, vm):
        return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError(f"{vm} does not match: <{api._VALUE_REGEX}> or <{api._MAPPING_REGEX}>")


api.Std.from_str = classmethod(_from_str)

if __name__ == "__main__":
    from torch.distributed.run import main

    sys.exit(main())
