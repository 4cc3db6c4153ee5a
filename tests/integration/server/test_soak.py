"""A short run of the chaos soak (tests/soak/soak.py, scripts/soak.sh): 20 s of writes and
watches per scenario, kw serve on its embedded store killed and restarted, then two kw serve
on a 3-member etcd cluster with kw and etcd members killed and a compaction. Fails on a lost
acknowledged write, a duplicate, out-of-order or missed watch event, a watcher whose final
view differs from the server, or a server whose RSS grew by more than 10%."""
import os
import subprocess
import unittest

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "soak", "soak.py")


class ShortSoak(unittest.TestCase):
    def test_soak_both_scenarios(self):
        seconds = os.environ.get("KW_SOAK_TEST_SECONDS", "20")
        out = subprocess.run(["/usr/bin/python3", DRIVER, "--seconds", seconds], capture_output=True, text=True,
                             timeout=280)
        print(out.stdout)
        self.assertEqual(out.returncode, 0, out.stdout[-6000:] + out.stderr[-3000:])
        self.assertEqual(out.stdout.count("result: ok"), 2, out.stdout[-6000:])


if __name__ == "__main__":
    unittest.main()
