"""A local HTTP receiver on 127.0.0.1 for the notification tests: answers each POST with the
next scripted status (the last one repeats), records what came, may hang."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=lambda: [200])
    hang: bool = False
    extra_headers: dict[str, str] = field(default_factory=dict)
    got: list[Received] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            self.got.append(Received(lines[0].split(" ")[1], headers, body))
            if self.hang:
                await asyncio.Event().wait()  # until the caller gives up
            status = self.statuses[min(len(self.got) - 1, len(self.statuses) - 1)]
            extra = "".join(f"{k}: {v}\r\n" for k, v in self.extra_headers.items())
            writer.write(f"HTTP/1.1 {status} X\r\n{extra}Content-Length: 0\r\n\r\n".encode())
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def receiving(receiver: Receiver) -> AsyncIterator[Receiver]:
    server = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    receiver.port = server.sockets[0].getsockname()[1]
    try:
        yield receiver
    finally:
        server.close()
