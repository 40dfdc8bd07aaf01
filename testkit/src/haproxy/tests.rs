use super::*;

#[test]
fn requests_are_read_from_the_log() {
    let log = "[WARNING]  (27458) : Server instances/s0 is UP\n\
               lb server=s1 status=200 POST /mcp mcpmethod={-} reqsid={-} lasteventid={-} ressid={4b9d}\n\
               lb server=s0 status=200 GET /mcp mcpmethod={-} reqsid={4b9d} lasteventid={0-7} ressid={-}\n\
               lb server=s0 status=200 POST /mcp mcpmethod={tools/call} reqsid={-} lasteventid={-} ressid={-}\n\
               lb server=<NOSRV> status=503 GET /mcp mcpmethod={-} reqsid={-} lasteventid={-} ressid={-}\n";
    let requests: Vec<_> = log.lines().filter_map(LoggedRequest::parse).collect();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        requests[0],
        LoggedRequest {
            backend: Some(1),
            status: 200,
            method: "POST".to_owned(),
            path: "/mcp".to_owned(),
            mcp_method: None,
            session: None,
            last_event_id: None,
            new_session: Some("4b9d".to_owned()),
        }
    );
    assert_eq!(requests[1].session.as_deref(), Some("4b9d"));
    assert_eq!(requests[1].last_event_id.as_deref(), Some("0-7"));
    assert_eq!(requests[1].new_session, None);
    assert_eq!(requests[2].mcp_method.as_deref(), Some("tools/call"));
    assert_eq!((requests[3].backend, requests[3].status), (None, 503));
}

#[test]
fn a_backend_status_is_read_from_show_stat() {
    let csv = "# pxname,svname,qcur,status,weight\n\
               mcp,FRONTEND,,OPEN,\n\
               instances,s0,0,UP,1\n\
               instances,s1,0,DOWN,1\n\
               instances,BACKEND,0,UP,2\n";
    assert_eq!(backend_status(csv, "s0"), Some("UP"));
    assert_eq!(backend_status(csv, "s1"), Some("DOWN"));
    assert_eq!(backend_status(csv, "s2"), None);
}

#[test]
fn the_config_balances_round_robin_without_stickiness() {
    let backends: Vec<SocketAddr> = vec![
        "127.0.0.1:1".parse().unwrap(),
        "127.0.0.1:2".parse().unwrap(),
    ];
    let text = config(
        "127.0.0.1:3".parse().unwrap(),
        &backends,
        Path::new("/tmp/x.sock"),
    );
    assert!(text.contains("balance roundrobin"));
    assert!(text.contains("    server s0 127.0.0.1:1\n    server s1 127.0.0.1:2\n"));
    assert!(text.contains("bind 127.0.0.1:3"));
    for sticky in ["cookie", "stick", "prefer-last-server", "balance source"] {
        assert!(!text.contains(sticky), "{sticky} in\n{text}");
    }
}

/// A tiny HTTP/1.1 backend on a thread: answers every request with `x-backend: <name>`,
/// keeping connections alive; [`Backend::stop`] closes the listener (and so fails haproxy's
/// health check, as a killed instance does).
struct Backend {
    addr: SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Backend {
    fn start(name: &'static str) -> Backend {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        std::thread::spawn(move || serve(stream, name));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Backend {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    fn stop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Answers each request on `stream` until the peer closes it (health checks close at once).
fn serve(stream: std::net::TcpStream, name: &str) {
    use std::io::BufRead as _;
    stream.set_nonblocking(false).unwrap();
    let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        // The request head; these requests have no body.
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" => break,
                Ok(_) => {}
            }
        }
        let answer = format!("HTTP/1.1 200 OK\r\nx-backend: {name}\r\ncontent-length: 0\r\n\r\n");
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// Sends `count` GETs through `addr` on one kept-alive connection; returns the `x-backend`
/// of each answer.
fn backends_of(addr: SocketAddr, count: usize) -> Vec<String> {
    use std::io::BufRead as _;
    let stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let mut seen = Vec::new();
    for _ in 0..count {
        writer
            .write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        let mut backend = None;
        loop {
            let mut line = String::new();
            assert!(reader.read_line(&mut line).unwrap() > 0, "haproxy closed");
            if line == "\r\n" {
                break;
            }
            if let Some(name) = line.to_ascii_lowercase().strip_prefix("x-backend: ") {
                backend = Some(name.trim().to_owned());
            }
        }
        seen.push(backend.expect("an answer without x-backend"));
    }
    seen
}

#[test]
fn requests_alternate_between_backends_and_a_dead_one_is_skipped() {
    let mut a = Backend::start("a");
    let b = Backend::start("b");
    let haproxy = Haproxy::start(&[a.addr, b.addr]).unwrap();
    assert!(haproxy.url().starts_with("http://127.0.0.1:"));
    assert_eq!(haproxy.backends(), [a.addr, b.addr]);
    // Round-robin per request, even on one kept-alive client connection: no stickiness.
    let mut seen = backends_of(haproxy.addr(), 4);
    seen.sort();
    assert_eq!(seen, ["a", "a", "b", "b"], "log:\n{}", haproxy.log());

    a.stop();
    haproxy
        .wait_backend(0, false, Duration::from_secs(20))
        .unwrap();
    assert!(haproxy.backend_up(1).unwrap());
    assert_eq!(backends_of(haproxy.addr(), 3), ["b", "b", "b"]);
    // Each request is logged as its response ends, which the client may see first.
    let started = std::time::Instant::now();
    while haproxy.requests().len() < 7 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let requests = haproxy.requests();
    assert_eq!(requests.len(), 7, "log:\n{}", haproxy.log());
    assert!(
        requests[4..]
            .iter()
            .all(|r| r.backend == Some(1) && r.status == 200)
    );
    assert_eq!(haproxy.sessions(), []);

    let pid = haproxy.pid();
    drop(haproxy);
    // Killed and reaped: the PID no longer names a process of ours.
    assert!(
        !Path::new(&format!("/proc/{pid}/status")).exists() || {
            let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            !status.contains("haproxy")
        }
    );
}
