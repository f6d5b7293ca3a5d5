"""``python -m cephsim`` is the same as the ``cephsim`` command."""

from cephsim.cli import main

main()
