"""Every keyboard shortcut of the designer window does one thing: no two actions share a key."""

from collections import defaultdict

from PySide6.QtGui import QAction


def test_no_two_actions_share_a_shortcut(make_window):
    window = make_window()
    seen = defaultdict(set)
    for action in window.findChildren(QAction):
        for seq in action.shortcuts():
            if not seq.isEmpty():
                seen[seq.toString()].add(action.text().replace("&", "").rstrip("…"))
    clashes = {key: names for key, names in seen.items() if len(names) > 1}
    assert clashes == {}
    assert "Ctrl+Y" in seen and "Ctrl+Shift+Z" in seen   # both redo (issue: desktop habits)
