#!/usr/bin/env python3
"""Rewrites a CUDA .cu file as plain C++ for tests/devices/cuda/emulated.

Each launch `kernel<<<grid, block, shared, stream>>>(args);` becomes
`::sy::emu::launch(stream, grid, block, [=] { kernel(args); });`, CUB's
header gives way to the stand-ins of emu_cuda.h (forced in by the build),
and libcu++'s cuda::std names become std ones.

usage: emulate_cu.py IN.cu OUT.cc
"""
import re
import sys


def split_top_level(s):
    """Splits s at the commas outside parentheses, brackets and braces."""
    parts, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


LAUNCH = re.compile(r'(\b[A-Za-z_][\w:]*(?:<[^;{}]*?>)?)\s*<<<(.*?)>>>\s*\((.*?)\)\s*;', re.S)


def rewrite(m):
    name, config, args = m.group(1), m.group(2), m.group(3)
    cfg = split_top_level(config)
    if len(cfg) != 4:
        sys.exit(f'emulate_cu.py: a launch needs grid, block, shared bytes and stream: <<<{config}>>>')
    grid, block, _, stream = cfg
    return f'::sy::emu::launch({stream}, {grid}, {block}, [=] {{ {name}({args}); }});'


def main():
    src = open(sys.argv[1]).read()
    src = src.replace('#include <cub/cub.cuh>', '')
    src = src.replace('#include <cuda/std/limits>', '#include <limits>')
    src = src.replace('#include <cuda/std/type_traits>', '#include <type_traits>')
    src = src.replace('::cuda::std::', 'std::')
    out, n = LAUNCH.subn(rewrite, src)
    if '<<<' in out:
        sys.exit(f'emulate_cu.py: {sys.argv[1]} has a launch it could not rewrite')
    with open(sys.argv[2], 'w') as f:
        f.write(f'// Generated from {sys.argv[1]} by emulate_cu.py ({n} launches); do not edit.\n')
        f.write(f'#line 1 "{sys.argv[1]}"\n')
        f.write(out)


main()
