"""The floor under every call into a Python submission: one byte there and back between two
processes over two pipes, as the driver's judge and executor talk (the README's Speed section).

    python3 benches/python/pingpong.py
"""
import os, time
r1, w1 = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w1); os.close(r2)  # else it holds its own write end and never sees the end
    while os.read(r1, 1):
        os.write(w2, b"x")
    os._exit(0)
os.close(r1); os.close(w2)
n = 10000
t = time.perf_counter()
for _ in range(n):
    os.write(w1, b"x"); os.read(r2, 1)
print(round((time.perf_counter() - t) / n * 1e6, 1), "µs per round trip")
os.close(w1)
os.waitpid(pid, 0)
