"""The metrics worker loads networkx while idle after its first answer, not before it (the open
design's first figures never wait for it) and not during the first edit (which must answer in
milliseconds). Run in a fresh interpreter, where nothing has imported networkx yet."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_the_worker_warms_up_after_its_first_answer_while_idle():
    script = textwrap.dedent("""
        import sys
        from designer.catalog import default_catalog
        from designer.model.topology.presets import new_design
        from designer.ui.services import compute_job

        design = new_design(default_catalog(), "leaf-spine", gpus=64)
        events = []

        class Conn:
            def __init__(self):
                self.inbox = [(1, (1, design, False)), None]
            def poll(self):
                return False          # idle: nothing waiting
            def recv(self):
                events.append(("recv", "networkx" in sys.modules))
                return self.inbox.pop(0)
            def send(self, message):
                events.append(("send", message[0]))

        compute_job.serve(Conn(), "metrics", default_catalog())
        print(events)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    events = eval(out.strip())   # a list of tuples printed by the script above
    assert events[0] == ("send", "ready")
    assert events[1] == ("recv", False)            # the first job is taken before any warm-up
    assert events[2] == ("send", 1)
    assert events[3] == ("recv", True)             # idle after answering: networkx is loaded
