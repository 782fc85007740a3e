//! The state of the last build, shared by the rebuild loop and the server, and the script that
//! `serve` injects into every HTML page it sends: it long-polls for the next build.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// The path the injected script polls.
pub const LIVE_PATH: &str = "/__tracebook/live";

/// How long one poll waits for a build before answering "nothing new".
const POLL_WAIT: Duration = Duration::from_secs(20);

const SCRIPT: &str = include_str!("live.js");

/// One build's outcome: every build, good or bad, gets the next version number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildState {
    pub version: u64,
    /// The build's errors as the terminal shows them; None when it succeeded.
    pub error: Option<String>,
}

impl BuildState {
    fn to_json(&self) -> String {
        serde_json::json!({ "version": self.version, "error": self.error }).to_string()
    }
}

/// The latest build, and a way to wait for the next one.
#[derive(Debug, Default)]
pub struct Live {
    state: Mutex<BuildState>,
    changed: Condvar,
}

impl Live {
    pub fn current(&self) -> BuildState {
        self.state
            .lock()
            .expect("no thread panics holding it")
            .clone()
    }

    /// Records a finished build and wakes every waiting page.
    pub fn publish(&self, error: Option<String>) {
        let mut state = self.state.lock().expect("no thread panics holding it");
        state.version += 1;
        state.error = error;
        self.changed.notify_all();
    }

    /// The state once its version differs from `since`, or after [`POLL_WAIT`], as JSON.
    pub fn wait_json(&self, since: u64) -> String {
        let state = self.state.lock().expect("no thread panics holding it");
        let (state, _) = self
            .changed
            .wait_timeout_while(state, POLL_WAIT, |s| s.version == since)
            .expect("no thread panics holding it");
        state.to_json()
    }

    /// `html` with the live-reload script before `</body>` (at the end if there is none).
    pub fn inject(&self, html: &str) -> String {
        // In a script element, "</" could close it early; JSON allows "<\/" for it.
        let state = self.current().to_json().replace("</", "<\\/");
        let script = format!(
            "<script>{}</script>\n",
            SCRIPT.replace("TRACEBOOK_LIVE_STATE", &state)
        );
        let at = html
            .to_ascii_lowercase()
            .rfind("</body>")
            .unwrap_or(html.len());
        let mut out = String::with_capacity(html.len() + script.len());
        out.push_str(&html[..at]);
        out.push_str(&script);
        out.push_str(&html[at..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_goes_before_the_body_end_with_the_state() {
        let live = Live::default();
        live.publish(Some("content/a.md:1:1: </script> oops".into()));
        let html = live.inject("<html><body><p>x</p></BODY></html>");
        let script = html.find("<script>").unwrap();
        assert!(script < html.find("</BODY>").unwrap());
        assert!(html.contains(r#""version":1"#), "{html}");
        assert!(
            !html.contains("</script> oops"),
            "the error cannot close the script early"
        );
    }

    #[test]
    fn waiting_returns_at_once_when_a_newer_build_exists() {
        let live = Live::default();
        live.publish(None);
        let state: serde_json::Value = serde_json::from_str(&live.wait_json(0)).unwrap();
        assert_eq!(state["version"], 1);
        assert!(state["error"].is_null());
    }
}
