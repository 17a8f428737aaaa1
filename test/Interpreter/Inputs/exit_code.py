"""exit_code.py N CMD...: runs CMD, prints its stdout and stderr, and exits 0
when CMD exited with status N (1 otherwise, saying what it got)."""
import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
sys.stdout.write(result.stdout)
if result.returncode != expected:
    print(f"exit status {result.returncode}, expected {expected}")
    sys.exit(1)
