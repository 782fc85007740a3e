//! One look at a URL: HEAD, or GET where a server refuses HEAD (403, 405, 501), following
//! redirects; only the status line and headers are read.

use super::retry::Answer;
use std::io;
use std::time::Duration;
use ureq::Agent;

/// Redirects followed before a link counts as broken.
const MAX_REDIRECTS: u32 = 10;

/// One client for every request, so connections to a host are reused; `timeout` bounds each
/// request whole (name lookup, connect, redirects, headers).
pub fn agent(timeout: Duration) -> Agent {
    Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(MAX_REDIRECTS)
        .user_agent(concat!(
            "tracebook/",
            env!("CARGO_PKG_VERSION"),
            " (link check)"
        ))
        .build()
        .into()
}

pub fn ask(agent: &Agent, url: &str) -> Answer {
    match answer(agent.head(url).call()) {
        // Some servers refuse HEAD but serve the page; the GET's body is dropped unread.
        Answer::Status {
            code: 403 | 405 | 501,
            ..
        } => answer(agent.get(url).call()),
        other => other,
    }
}

fn answer(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    match result {
        Ok(response) => Answer::Status {
            code: response.status().as_u16(),
            retry_after: response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok())
                .map(Duration::from_secs),
        },
        Err(ureq::Error::Timeout(_)) => Answer::Timeout,
        Err(ureq::Error::Io(err)) if err.kind() == io::ErrorKind::TimedOut => Answer::Timeout,
        Err(err) => Answer::Failed {
            reason: describe(&err),
            transient: !matches!(
                err,
                ureq::Error::BadUri(_)
                    | ureq::Error::Http(_)
                    | ureq::Error::TooManyRedirects
                    | ureq::Error::RedirectFailed
            ),
        },
    }
}

/// Why no answer came, in a few words.
fn describe(err: &ureq::Error) -> String {
    match err {
        ureq::Error::HostNotFound => "host not found".into(),
        ureq::Error::ConnectionFailed => "could not connect".into(),
        ureq::Error::TooManyRedirects => format!("more than {MAX_REDIRECTS} redirects"),
        ureq::Error::BadUri(uri) => format!("not a valid address ({uri})"),
        ureq::Error::Io(io) => match io.kind() {
            io::ErrorKind::ConnectionRefused => "connection refused".into(),
            io::ErrorKind::ConnectionReset => "connection reset".into(),
            io::ErrorKind::ConnectionAborted => "connection aborted".into(),
            io::ErrorKind::UnexpectedEof => "the server closed the connection".into(),
            _ => io.to_string(),
        },
        other => other.to_string(),
    }
}
