# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""pyverbs' verbs enumerators under their C names (IBV_QPT_RC, ...),
whichever pyverbs runs the tests.

Up to rdma-core 56 (bookworm, trixie) pyverbs.enums has them as plain
module attributes.  rdma-core 65's (sid) has no pyverbs.enums: its
pyverbs.libibverbs_enums has one Python enum class per C enum
(ibv_qp_type.IBV_QPT_RC), int subclasses pyverbs takes as before.  Here
their members, and its few plain IBV_ constants, become attributes of this
module, so the tests say e.IBV_QPT_RC with either.
"""
import enum

try:
    from pyverbs.enums import *  # noqa: F401,F403 (rdma-core up to 56)
except ImportError:
    import pyverbs.libibverbs_enums as _enums

    for _name in dir(_enums):
        _value = getattr(_enums, _name)
        if isinstance(_value, type) and issubclass(_value, enum.Enum):
            for _member, _item in _value.__members__.items():
                if _member.startswith('IBV_'):
                    globals().setdefault(_member, _item)
        elif _name.startswith('IBV_'):
            globals().setdefault(_name, _value)
