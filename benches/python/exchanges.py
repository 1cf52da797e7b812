"""How many exchanges a Python submission's grading takes, and what they cost (the README's
Speed section): runs a broadside command under strace, counts the requests broadside sent to
its Python driver and the exchanges between the driver's judge and the executor, and with
--replay plays broadside's recorded requests against drivers/python_driver.py alone, ROUNDS
times, checking that its answers are the ones the run got, and prints the processor time of
the judge and the executor together (medians).

    python3 benches/python/exchanges.py [--replay SUBMISSION] [--rounds N] -- COMMAND...

e.g. (from the repository root, after cargo build --release):
    python3 benches/python/exchanges.py --replay fixtures/submissions/solo-10x10/correct -- \
        target/release/broadside run fixtures/scenarios/solo-10x10/*.toml \
        --target python:fixtures/submissions/solo-10x10/correct
The replay uses $BROADSIDE_PYTHON, else this interpreter. Needs strace (apt-get install strace).
"""
import argparse, codecs, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile

WRITE = re.compile(r'(\d+)\s+write\((\d+), "(.*)", \d+\) = \d+$')


def json_lines(text):
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield line, value


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replay", metavar="SUBMISSION")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()
    if shutil.which("strace") is None:
        sys.exit("exchanges.py: strace is not installed (apt-get install strace)")
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace")
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=write", "-e", "signal=none",
                        "-s", "100000000", "-xx", "-o", trace, *args.command],
                       stdout=subprocess.DEVNULL, check=False)
        top, writes = None, []
        for line in open(trace):
            m = WRITE.match(line.rstrip("\n"))
            if m:
                pid, fd, data = m.groups()
                top = top or pid  # broadside writes before any child exists
                writes.append((pid, fd, codecs.escape_decode(data.encode())[0].decode("utf-8", "replace")))
    requests, answers, exchanges = [], {}, 0
    for pid, fd, data in writes:
        for line, value in json_lines(data):
            if pid == top and "op" in value and "id" in value:
                requests.append(line)
            elif pid != top and "op" in value and "id" not in value:
                exchanges += 1  # the judge asks the executor: load, call, many, plan, fetch
            elif pid != top and "id" in value and "ok" in value:
                answers.setdefault((pid, fd), []).append(line)
    print("{} requests from broadside, {} exchanges between judge and executor".format(
        len(requests), exchanges))
    if args.replay is None:
        return
    if len(answers) != 1:
        sys.exit("exchanges.py: --replay wants a command with one driver; this one had {}".format(
            len(answers)))
    expected = next(iter(answers.values()))
    driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "drivers",
                          "python_driver.py")
    python = os.environ.get("BROADSIDE_PYTHON", sys.executable)
    stdin = "".join(r + "\n" for r in requests).encode()
    cpu = []
    for _ in range(args.rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([python, driver, args.replay], input=stdin, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.stdout.decode().splitlines() != expected:
            sys.exit("exchanges.py: the replay's answers differ from the run's")
        # The driver reaps its executor, so a child's usage is the judge's and the executor's.
        cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    print("replayed against the driver alone: answers identical; {:.0f} ms of processor "
          "(judge and executor, median of {})".format(statistics.median(cpu), args.rounds))

if __name__ == "__main__":
    main()
