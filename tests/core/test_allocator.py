"""core.allocator: glibc's malloc takes the settings; elsewhere nothing is asked."""

import platform
import sys

from core.allocator import keep_freed_memory


def test_glibc_keeps_freed_memory_and_other_c_libraries_are_left_alone():
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert keep_freed_memory() is glibc
