"""What cephsim reads and writes: measurement readers, fio-style reports, atomic output."""
