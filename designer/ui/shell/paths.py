"""Where the window keeps its settings and autosaves.

Both places follow the platform's conventions (platformdirs) and can be moved with an
environment variable, which is how tests and portable installs keep them apart.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

APP_NAME = "fabric-designer"
DATA_DIR_ENV = "FABRIC_DESIGNER_DATA_DIR"
CONFIG_DIR_ENV = "FABRIC_DESIGNER_CONFIG_DIR"


def data_dir() -> Path:
    """The user data directory (autosaves live in its `autosave` folder)."""
    return Path(os.environ.get(DATA_DIR_ENV) or user_data_dir(APP_NAME))


def config_dir() -> Path:
    """The user configuration directory (window layout, recent files)."""
    return Path(os.environ.get(CONFIG_DIR_ENV) or user_config_dir(APP_NAME))


def autosave_dir() -> Path:
    return data_dir() / "autosave"


def settings_file() -> Path:
    return config_dir() / "settings.ini"
