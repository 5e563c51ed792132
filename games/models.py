"""The app's models, where Django looks for them: they live in `games.store.models` beside the
rest of the storage (fields, row writes, kept games); this module only names them for Django's
app registry, the migrations and the admin."""

from .store.models import *  # noqa: F403
from .store.models import __all__  # noqa: F401
