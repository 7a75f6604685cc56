# Regenerates promtool_xor_chunks.json (needs promtool on PATH; Debian 2.42 was used):
#   cd $(mktemp -d) && python3 <this file> && cp promtool_xor_chunks.json <here> && npx prettier --write <here>
import json, random, struct, subprocess, os, shutil, glob
random.seed(20261121)
BASE = 1700006400000  # aligned to 2h
def bits(v):
    if v != v: return 0x7ff8000000000001  # Go's math.NaN(), what promtool's parser yields
    return struct.unpack('>Q', struct.pack('>d', v))[0]
def fmt(v):
    if v != v: return 'NaN'
    if v == float('inf'): return '+Inf'
    if v == float('-inf'): return '-Inf'
    return repr(v)
series = {}
# counter at 15s with jitter of a few ms and occasional missed scrapes
s=[]; v=0.0; t=BASE+7
for i in range(380):
    t += random.choice([15000,15000,15000,15001,14999,15137,30000])
    v += random.randint(0, 40)
    s.append((t, v))
series['counter'] = s
# gauge at 10s with random jitter, random floats and special values
s=[]; t=BASE+123
for i in range(500):
    t += 10000 + random.randint(-2500, 2500)
    v = random.choice([random.uniform(-1e9, 1e9), random.random()*1e-300, 5e-324, float('nan'), float('inf'), float('-inf'), 0.0, -0.0, 42.0, 1.7976931348623157e308, random.gauss(0, 1)])
    s.append((t, v))
series['gauge'] = s
# constant at 1s for fast-rate cutting (2x cap never hits but 4h-range prediction does)
s=[(BASE + 500 + i*1000, 3.0) for i in range(600)]
series['constant'] = s
out = {'generatedBy': 'promtool 2.42.0 (Debian 2.42.0+ds-5+deb12u1): tsdb create-blocks-from openmetrics, one series per run; chunks read from chunks/000001 of the single block; NaN values are Go math.NaN() bits', 'series': []}
for name, samples in series.items():
    shutil.rmtree('out', ignore_errors=True)
    with open('in.om', 'w') as f:
        f.write(f'# TYPE {name} gauge\n')
        for t, v in samples:
            f.write(f'{name} {fmt(v)} {t//1000}.{t%1000:03d}\n')
        f.write('# EOF\n')
    subprocess.run(['promtool', 'tsdb', 'create-blocks-from', 'openmetrics', 'in.om', 'out'], check=True, capture_output=True)
    blocks = sorted(glob.glob('out/*/chunks/000001'))
    assert len(blocks) == 1, blocks
    data = open(blocks[0], 'rb').read()
    assert data[:4] == bytes.fromhex('85bd40dd'), data[:8].hex()
    pos = 8; chunks = []
    while pos < len(data):
        n = 0; shift = 0
        while True:
            b = data[pos]; pos += 1
            n |= (b & 0x7f) << shift; shift += 7
            if b < 0x80: break
        enc = data[pos]; pos += 1
        assert enc == 1
        chunks.append(data[pos:pos+n].hex()); pos += n + 4
    out['series'].append({'name': name, 'samples': [[t, format(bits(v), '016x')] for t, v in samples], 'chunks': chunks})
    print(name, len(samples), 'samples', len(chunks), 'chunks', [len(c)//2 for c in chunks])
json.dump(out, open('promtool_xor_chunks.json', 'w'), separators=(',', ':'))
print(os.path.getsize('promtool_xor_chunks.json'))
