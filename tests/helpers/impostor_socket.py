"""A socket put where a Portal host's should be, by another user: it listens
at argv[1] and says on stdout what each caller did: "connected", then
"received N" once the caller has closed (or after 10 s), N being the bytes
it sent (a door's hello would be its cwd and PORTAL_SECRET_* values)."""
import os
import socket
import sys

path = sys.argv[1]
listener = socket.socket(socket.AF_UNIX)
listener.bind(path)
os.chmod(path, 0o777)
listener.listen(8)
print("listening", flush=True)
while True:
    conn, _ = listener.accept()
    print("connected", flush=True)
    conn.settimeout(10)
    received = 0
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            received += len(chunk)
    except OSError:
        pass
    print(f"received {received}", flush=True)
    conn.close()
