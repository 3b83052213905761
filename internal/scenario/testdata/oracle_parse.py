"""Test helper: runs documents through the nova-oracle's own scenario
parser (novaoracle/scenario.py, Python standard library only).

usage: python3 oracle_parse.py ORACLE_DIR < requests.json

stdin is a JSON list of requests:
  {"messages": [TEXT, ...]}      -> the oracle's error message for each
                                    document text (null if it parses,
                                    "SYNTAX: ..." for Python's JSON errors)
  {"same": [[TEXT_A, TEXT_B], ...]} -> for each pair, null if both parse to
                                    the same scenario, else a description
"""

import json
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from novaoracle import scenario  # noqa: E402


def load(text):
    return json.loads(text, object_pairs_hook=scenario._no_duplicate_keys,
                      parse_constant=scenario._no_constants)


def message(text):
    try:
        scenario.parse_scenario(load(text))
    except scenario.BadInput as e:
        return str(e)
    except json.JSONDecodeError as e:
        return 'SYNTAX: %s' % e
    return None


def canonical(scn):
    """What the oracle hands to Nova, in forms that do not depend on how
    the document spelled them (cpu_info object or text, a hint string or a
    one-element list)."""
    for h in scn['hosts']:
        # ComputeNode IntegerFields: Nova truncates (novaenv warns).
        for k in ('memory_mb', 'free_ram_mb', 'vcpus', 'vcpus_used',
                  'local_gb', 'free_disk_gb', 'disk_available_least'):
            if isinstance(h[k], float):
                h[k] = int(h[k])
        if isinstance(h['cpu_info'], dict):
            h['cpu_info'] = json.dumps(h['cpu_info'])
    hints = scn['request']['scheduler_hints']
    for k, v in list(hints.items()):
        if k in ('same_host', 'different_host'):
            if isinstance(v, str):
                hints[k] = [v]
            if hints[k] == []:
                del hints[k]
        elif isinstance(v, list):
            hints[k] = v[0]
    for k in ('query', 'build_near_host_ip', 'cidr'):
        if hints.get(k) == '':
            del hints[k]
    return scn


def same(a, b):
    try:
        sa = canonical(scenario.parse_scenario(load(a)))
        sb = canonical(scenario.parse_scenario(load(b)))
    except (scenario.BadInput, json.JSONDecodeError) as e:
        return 'does not parse: %s' % e
    if sa == sb:
        return None
    diffs = []
    for k in sa:
        if sa[k] != sb.get(k):
            if isinstance(sa[k], list):
                for i, (x, y) in enumerate(zip(sa[k], sb[k])):
                    if x != y:
                        diffs.append('%s[%d]: %r != %r' % (k, i, x, y))
                        break
                if len(sa[k]) != len(sb[k]):
                    diffs.append('%s: %d != %d items' % (k, len(sa[k]), len(sb[k])))
            else:
                diffs.append('%s: %r != %r' % (k, sa[k], sb.get(k)))
    return '; '.join(diffs)[:2000]


def main():
    req = json.load(sys.stdin)
    out = {}
    if 'messages' in req:
        out['messages'] = [message(t) for t in req['messages']]
    if 'same' in req:
        out['same'] = [same(a, b) for a, b in req['same']]
    json.dump(out, sys.stdout)


main()
