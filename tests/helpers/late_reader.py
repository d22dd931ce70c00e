# A program that sleeps in epoll_wait on its terminal while its input waits unread: it
# watches the terminal edge-triggered, wakes every 5 ms (its timeout), and takes a
# line only 50 ms after it arrived. Until then it has run since the write, and sleeps in a
# wait on its input, yet has not taken it: only the kernel's queues tell.
import os
import select
import time

ep = select.epoll()
ep.register(0, select.EPOLLIN | select.EPOLLET)
os.write(1, b"> ")
arrived = None
while True:
    if ep.poll(0.005) and arrived is None:
        arrived = time.monotonic()
    if arrived is not None and time.monotonic() - arrived > 0.05:
        line = os.read(0, 4096).strip()
        os.write(1, b"got " + line + b"\n> ")
        arrived = None
