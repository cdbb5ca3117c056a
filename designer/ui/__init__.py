"""The designer window (PySide6). The model never imports anything from here."""
