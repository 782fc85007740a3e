//! What one answer means for a link, and when to ask again: connection errors, 429 and 5xx
//! are retried with backoff (a server's `Retry-After` is honoured up to a cap); a timeout is not,
//! so a server that never answers costs one timeout and the whole check stays bounded.

use std::time::Duration;

/// What one request (HEAD, or the GET after a refused HEAD) got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The status after following redirects, and `Retry-After` in seconds if the server sent it.
    Status {
        code: u16,
        retry_after: Option<Duration>,
    },
    /// No answer within the timeout.
    Timeout,
    /// No HTTP answer at all: `transient` when asking again may help (refused, reset, DNS).
    Failed { reason: String, transient: bool },
}

/// The end of a link's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// A 4xx: the page is not there (or not for us).
    Missing {
        code: u16,
    },
    /// A 5xx on every try.
    ServerError {
        code: u16,
        tries: u32,
    },
    Timeout,
    /// No connection on every try.
    Unreachable {
        reason: String,
        tries: u32,
    },
    /// 429 on every try: the server would not say, so the link is neither broken nor OK.
    Limited {
        tries: u32,
    },
}

/// After an answer: a verdict, or wait and ask again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Done(Verdict),
    Wait(Duration),
}

/// How often, and after how long, to ask again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries after the first.
    pub retries: u32,
    /// The wait before the first retry; it doubles with each one.
    pub backoff: Duration,
    /// The longest wait, whatever `Retry-After` asks for.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 2,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// What to do after `answer`, the answer to try number `attempt` (0 for the first).
    pub fn next(&self, answer: Answer, attempt: u32) -> Next {
        let again = attempt < self.retries;
        let tries = attempt + 1;
        match answer {
            Answer::Status { code, .. } if code < 400 => Next::Done(Verdict::Ok),
            Answer::Status {
                code: 429 | 500..,
                retry_after,
            } if again => Next::Wait(self.wait(attempt, retry_after)),
            Answer::Status { code: 429, .. } => Next::Done(Verdict::Limited { tries }),
            Answer::Status {
                code: code @ 500.., ..
            } => Next::Done(Verdict::ServerError { code, tries }),
            Answer::Status { code, .. } => Next::Done(Verdict::Missing { code }),
            Answer::Timeout => Next::Done(Verdict::Timeout),
            Answer::Failed {
                transient: true, ..
            } if again => Next::Wait(self.wait(attempt, None)),
            Answer::Failed { reason, .. } => Next::Done(Verdict::Unreachable { reason, tries }),
        }
    }

    /// `Retry-After` when the server gave one, else the backoff for this attempt; capped.
    fn wait(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        retry_after
            .unwrap_or_else(|| self.backoff.saturating_mul(2u32.saturating_pow(attempt)))
            .min(self.max_wait)
    }
}

/// `404 Not Found`: the code and its standard reason.
pub fn status_text(code: u16) -> String {
    let reason = ureq::http::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason());
    match reason {
        Some(reason) => format!("{code} {reason}"),
        None => code.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16) -> Answer {
        Answer::Status {
            code,
            retry_after: None,
        }
    }

    fn refused() -> Answer {
        Answer::Failed {
            reason: "connection refused".into(),
            transient: true,
        }
    }

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn success_and_redirect_ends_are_ok() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.next(status(200), 0), Next::Done(Verdict::Ok));
        assert_eq!(policy.next(status(204), 2), Next::Done(Verdict::Ok));
    }

    #[test]
    fn a_4xx_is_missing_at_once() {
        let policy = RetryPolicy::default();
        let missing = |code| Next::Done(Verdict::Missing { code });
        assert_eq!(policy.next(status(404), 0), missing(404));
        assert_eq!(policy.next(status(410), 0), missing(410));
    }

    #[test]
    fn server_errors_are_retried_with_doubling_backoff_then_broken() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.next(status(503), 0), Next::Wait(MS(500)));
        assert_eq!(policy.next(status(500), 1), Next::Wait(MS(1000)));
        assert_eq!(
            policy.next(status(503), 2),
            Next::Done(Verdict::ServerError {
                code: 503,
                tries: 3
            })
        );
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy::default();
        let after = |secs| Answer::Status {
            code: 429,
            retry_after: Some(Duration::from_secs(secs)),
        };
        assert_eq!(policy.next(after(3), 0), Next::Wait(Duration::from_secs(3)));
        assert_eq!(
            policy.next(after(3600), 1),
            Next::Wait(Duration::from_secs(10))
        );
    }

    #[test]
    fn rate_limited_to_the_end_is_not_called_broken() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.next(status(429), 2),
            Next::Done(Verdict::Limited { tries: 3 })
        );
    }

    #[test]
    fn connection_errors_are_retried_but_timeouts_are_not() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.next(refused(), 0), Next::Wait(MS(500)));
        assert_eq!(
            policy.next(refused(), 2),
            Next::Done(Verdict::Unreachable {
                reason: "connection refused".into(),
                tries: 3
            })
        );
        assert_eq!(
            policy.next(Answer::Timeout, 0),
            Next::Done(Verdict::Timeout)
        );
        let permanent = Answer::Failed {
            reason: "too many redirects".into(),
            transient: false,
        };
        assert!(matches!(
            policy.next(permanent, 0),
            Next::Done(Verdict::Unreachable { tries: 1, .. })
        ));
    }

    #[test]
    fn no_retries_means_one_try() {
        let policy = RetryPolicy {
            retries: 0,
            ..RetryPolicy::default()
        };
        assert_eq!(
            policy.next(status(502), 0),
            Next::Done(Verdict::ServerError {
                code: 502,
                tries: 1
            })
        );
    }

    #[test]
    fn status_text_names_the_reason() {
        assert_eq!(status_text(404), "404 Not Found");
        assert_eq!(status_text(599), "599");
    }
}
