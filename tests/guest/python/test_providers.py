# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Debian's pyverbs direct-verbs modules load on the library under test.

pyverbs.providers.mlx5.mlx5dv links libmlx5.so.1 and
pyverbs.providers.efa.efadv links libefa.so.1; both libraries import the
provider ABI (IBVERBS_PRIVATE_34), so on a library without it the import
fails with the loader's "undefined symbol ..., version IBVERBS_PRIVATE_34".
No device of theirs is needed: the import alone binds every symbol.  After
the import the process must still have mapped only the library under test
(conftest.py) and the direct-verbs library must be in it.
"""
import importlib
import os

import pytest

from conftest import mapping_problem

MODULES = [
    ('pyverbs.providers.mlx5.mlx5dv', 'libmlx5.so.1'),
    ('pyverbs.providers.efa.efadv', 'libefa.so.1'),
]


def mapped_basenames():
    names = set()
    with open('/proc/self/maps') as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6:
                names.add(os.path.basename(fields[5].strip()))
    return names


@pytest.mark.parametrize('module,lib', MODULES,
                         ids=[m.rsplit('.', 1)[1] for m, _ in MODULES])
def test_import_direct_verbs(module, lib):
    mod = importlib.import_module(module)
    assert mod is not None
    mapped = {n for n in mapped_basenames() if n.startswith(lib)}
    assert mapped, '%s imported but %s is not mapped' % (module, lib)
    assert mapping_problem() is None, mapping_problem()
