#!/usr/bin/python3
"""torchrun for the failure lab: Debian's torch 1.13 launcher, with one fix for Python 3.11.

torch 1.13 reads --redirects / --tee by iterating an IntFlag, which on Python 3.11 no longer yields
the two-bit value ALL (3), so `--tee 3` fails. Std.from_str is replaced by a direct conversion.
"""
import re
import sys

from torch.distributed.elastic.multiprocessing import api


def _from_str(vm):
    if re.match(r"^[0123]$", vm):
        return api.Std(int(vm))
    return {int(i): api.Std(int(v)) for i, v in (m.split(":") for m in vm.split(","))}


api.Std.from_str = classmethod(lambda cls, vm: _from_str(vm))

from torch.distributed.run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
