#!/usr/bin/env python3
"""Summarise the mock's request log: the achieved rate against the allowed
one, 429s in the first minute and after it.

    summary.py LOG RPM
"""
import sys

log, rpm = sys.argv[1], float(sys.argv[2])
rows = [(float(t), int(s)) for t, s in (l.split() for l in open(log) if l.strip())]
rows.sort()
start, end = rows[0][0], rows[-1][0]
ok = [t for t, s in rows if s == 200]
too_many = [t for t, s in rows if s == 429]
late = [t for t in too_many if t - start >= 60.0]
span = max(end - start, 1e-9)
# the rate over the run: answered calls per minute between the first and the last
achieved = (len(ok) - 1) / span * 60.0
print(f"requests\t{len(rows)}")
print(f"answered\t{len(ok)}")
print(f"seconds\t{span:.1f}")
print(f"achieved_rpm\t{achieved:.1f}")
print(f"of_allowed\t{achieved / rpm * 100:.1f}%")
print(f"429_first_minute\t{len(too_many) - len(late)}")
print(f"429_after_first_minute\t{len(late)}")
