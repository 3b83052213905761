"""Serve the Nova oracle's commands from one long-lived Python process.

Run as `python3 -c <this file's text> ORACLE EXACT`: ORACLE is the
oracle's script (../shared/nova-oracle/oracle), EXACT is 1 to set the
tolerances of `oracle check` to 0 (placer promises Nova's weights bit for
bit) or 0 for the oracle's own. Reads one JSON array of arguments per line
on stdin (["place", "s.json"], ["check", "s.json", "r.json"]), runs the
oracle's own main() on it with its stdout and stderr captured, and writes
one JSON object per line: {"code": EXIT, "stdout": ..., "stderr": ...}.

Importing Nova takes seconds; a command takes milliseconds. Every command
builds its own NovaWorld, which sets every option of the scenario's config
in Nova's CONF and a fresh HostManager, as one `oracle` process per
command does.
"""
import contextlib
import io
import json
import os
import runpy
import sys

sys.dont_write_bytecode = True
oracle = os.path.realpath(sys.argv[1])
exact = sys.argv[2] == '1'
sys.path.insert(0, os.path.dirname(oracle))
sys.argv = [oracle]
mod = runpy.run_path(oracle, run_name='oracle')
if exact:
    from novaoracle import check
    check.RANK_EPS = 0.0
    check.VALUE_EPS = 0.0
# Import Nova now, so that the first command is not the slow one.
from novaoracle import novaenv  # noqa: E402
novaenv.load_nova()

reply = sys.stdout
print(json.dumps({'ready': True}), file=reply, flush=True)
for line in sys.stdin:
    argv = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = mod['main'](argv)
        except SystemExit as e:  # argparse errors
            code = e.code if isinstance(e.code, int) else 2
    reply.write(json.dumps({'code': code, 'stdout': out.getvalue(),
                            'stderr': err.getvalue()}) + '\n')
    reply.flush()
