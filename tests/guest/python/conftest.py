# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Session checks for the in-guest pyverbs tests.

These tests drive Debian's python3-pyverbs, unchanged, with
/usr/bin/python3.  Which libibverbs.so.1 it runs on is chosen by the
caller's LD_LIBRARY_PATH (tests/guest/run-all sets it); before any test
runs, this file proves the choice took: the pytest process itself must
have mapped exactly the library under test and no other libibverbs.

  IBV_UNDER_TEST=project (default)  the project's build, found as
                                    IBV_BUILD_DIR/lib/libibverbs.so.1
                                    (IBV_BUILD_DIR defaults to build/ in
                                    the checkout)
  IBV_UNDER_TEST=debian             /usr/lib/x86_64-linux-gnu's
  IBV_UNDER_TEST=installed          /usr/lib/x86_64-linux-gnu's, which
                                    must be this project's, installed
                                    from its package libibverbs-fork1
                                    (tests/pkg)

With IBV_UNDER_TEST=debian the library must also be Debian's rdma-core
44.0-2 as shipped (tests/guest/lib/maps.sh, ibv_verify_debian): once this
project's packages are installed, /usr/lib holds ours.

Nothing is skipped: pyverbs that cannot be imported, or the wrong library,
ends the session with a failure and says why.
"""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
DEBIAN_LIB = '/usr/lib/x86_64-linux-gnu/libibverbs.so.1'
UNDER_TEST = os.environ.get('IBV_UNDER_TEST', 'project')


def project_lib():
    build = os.environ.get('IBV_BUILD_DIR') or os.path.join(TOP, 'build')
    return os.path.join(os.path.abspath(build), 'lib', 'libibverbs.so.1')


def expected_lib():
    """Real path of the library under test, or raise with the reason."""
    if UNDER_TEST in ('debian', 'installed'):
        path = DEBIAN_LIB
    elif UNDER_TEST == 'project':
        path = project_lib()
    else:
        raise RuntimeError("IBV_UNDER_TEST must be 'project', 'debian' or "
                           "'installed', not %r" % UNDER_TEST)
    if not os.path.exists(path):
        raise RuntimeError('the library under test %s does not exist '
                           '(IBV_UNDER_TEST=%s)' % (path, UNDER_TEST))
    return os.path.realpath(path)


def mapped_libibverbs(pid='self'):
    """Real paths of every libibverbs.so* that process @pid has mapped."""
    found = set()
    with open('/proc/%s/maps' % pid) as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6:
                path = fields[5].strip()
                if os.path.basename(path).startswith('libibverbs.so'):
                    found.add(os.path.realpath(path))
    return found


def mapping_problem(pid='self'):
    """None when @pid runs on exactly the library under test, else why."""
    want = expected_lib()
    got = mapped_libibverbs(pid)
    if got == {want}:
        return None
    return ('process %s should run on %s (IBV_UNDER_TEST=%s) but mapped %s'
            % (pid, want, UNDER_TEST,
               ', '.join(sorted(got)) or 'no libibverbs at all'))


def maps_problem(*call):
    """None when maps.sh's function call[0], given the rest of @call as its
    arguments, succeeds, else what it printed."""
    maps = os.path.join(TOP, 'tests', 'guest', 'lib', 'maps.sh')
    cmd = ['/bin/bash', '-c', 'source "$1" && shift && "$@"', 'maps.sh',
           maps] + list(call)
    out = subprocess.run(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    return None if out.returncode == 0 else out.stdout.strip()


def reference_problem():
    """None when /usr/lib's libibverbs is Debian's 44.0-2, else why."""
    return maps_problem('ibv_verify_debian')


def installed_problem():
    """None when /usr/lib's libibverbs is ours from libibverbs-fork1."""
    return maps_problem('_ours_installed', DEBIAN_LIB)


def pytest_sessionstart(session):
    try:
        # Loads libibverbs.so.1 (and librdmacm, which needs it too).
        import pyverbs.device  # noqa: F401
    except ImportError as err:
        pytest.exit('FAIL: cannot import Debian\'s pyverbs (%s): install '
                    'python3-pyverbs (buildlib/install-deps) and run the '
                    'tests with /usr/bin/python3' % err, returncode=3)
    try:
        problem = mapping_problem()
    except RuntimeError as err:
        problem = str(err)
    if not problem and UNDER_TEST == 'debian':
        problem = reference_problem()
    if not problem and UNDER_TEST == 'installed':
        problem = installed_problem()
    if problem:
        pytest.exit('FAIL: wrong libibverbs: ' + problem, returncode=3)


def pytest_report_header(config):
    try:
        return 'libibverbs under test (%s): %s' % (UNDER_TEST, expected_lib())
    except RuntimeError as err:
        return 'libibverbs under test: %s' % err
