//! The server: a tokio runtime, an accept loop and hyper's HTTP/1.1
//! connections, each bounded in time and number.
//!
//! - At most [`Limits::connections`] connections at once: the next is not
//!   accepted until one closes (it waits in the kernel's backlog).
//! - A request's header must arrive within [`Limits::header`] (a client
//!   that trickles it is dropped), and no read or write of a connection
//!   may stall longer than [`Limits::io`] (a client that never reads its
//!   answer is dropped), so slow clients hold a connection slot, never a
//!   worker, and only for a bounded time.
//! - SIGTERM or SIGINT: the listener closes, connections finish the
//!   request in flight (at most [`Limits::drain`]) and [`run`] returns.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;

use crate::error::Error;
use crate::routes::{App, router};

/// The bounds of a server's connections.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections at once.
    pub connections: usize,
    /// Time to receive a request's header.
    pub header: Duration,
    /// Longest stall of a read or a write.
    pub io: Duration,
    /// Time given to requests in flight at shutdown.
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 1024,
            header: Duration::from_secs(10),
            io: Duration::from_secs(30),
            drain: Duration::from_secs(10),
        }
    }
}

/// The largest request head (request line and headers) read; beyond it
/// hyper answers 431 without a body. (A request line over 64 KiB is
/// answered 414 by hyper, without a body, whatever this is: long queries
/// go in a `POST .../search` form body.)
const MAX_HEAD_BYTES: usize = 256 << 10;

/// Serves `app` on `bind` until SIGTERM or SIGINT; `ready` is called with
/// the address bound (port 0 picks one) before the first connection is
/// accepted.
pub fn run(
    app: App,
    bind: SocketAddr,
    limits: Limits,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            what: "starting the server's runtime",
            source,
        })?;
    runtime.block_on(serve(Arc::new(app), bind, limits, ready))
}

async fn serve(
    app: Arc<App>,
    bind: SocketAddr,
    limits: Limits,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|source| Error::Bind { addr: bind, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| Error::Bind { addr: bind, source })?;
    let stop = shutdown_signal()?;
    ready(local);
    let router = router(app);
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.connections.max(1)));
    tokio::pin!(stop);
    loop {
        let slot = tokio::select! {
            s = Arc::clone(&slots).acquire_owned() => s,
            () = &mut stop => break,
        };
        let Ok(slot) = slot else { break };
        let stream = tokio::select! {
            a = listener.accept() => a,
            () = &mut stop => break,
        };
        let Ok((stream, _)) = stream else {
            // Out of file descriptors, or a connection reset before it
            // was accepted: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let mut io = TimeoutStream::new(stream);
        io.set_read_timeout(Some(limits.io));
        io.set_write_timeout(Some(limits.io));
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header)
            .max_buf_size(MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(Box::pin(io)),
                TowerToHyperService::new(router.clone()),
            );
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.drain) => {}
    }
    Ok(())
}

/// A future that resolves at SIGTERM or SIGINT, the handlers installed
/// now (so a signal sent as soon as the address is printed is caught).
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, Error> {
    use tokio::signal::unix::{SignalKind, signal};
    let io = |source| Error::Io {
        what: "listening for SIGTERM",
        source,
    };
    let mut term = signal(SignalKind::terminate()).map_err(io)?;
    let mut int = signal(SignalKind::interrupt()).map_err(io)?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}
