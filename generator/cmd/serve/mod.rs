//! `tracebook serve`: builds the site, serves public/ on loopback, and rebuilds on every
//! edit; pages reload themselves, and a failed build shows over the page until it is fixed.

mod http;
mod live;
mod watch;

use super::build::ClaimsArg;
use super::ui::{Style, Ui};
use anyhow::bail;
use live::Live;
use std::io::ErrorKind;
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracebook_site::{ClaimPolicy, Overrides};
use watch::Snapshot;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The port on 127.0.0.1 to serve on.
    #[arg(long, default_value_t = 3030)]
    pub port: u16,
    /// What a false claim does: stop the build (error) or be reported while the site is
    /// built and served (warn, while the prose is being revised). Overrides `[check] claims`.
    #[arg(long, value_name = "POLICY")]
    pub claims: Option<ClaimsArg>,
}

/// How often the watched files are looked at.
const POLL: Duration = Duration::from_millis(50);
/// After a change, how long to wait for the editor to finish writing before building.
const SETTLE: Duration = Duration::from_millis(30);

pub fn run(root: &Path, ui: &Ui, args: Args) -> anyhow::Result<()> {
    if !root.join(tracebook_site::CONFIG_FILE).is_file() {
        bail!(
            "{} has no {}, so there is no site to serve\n  hint: run this in a site folder, pass --root DIR, or create one with `tracebook init DIR`",
            root.display(),
            tracebook_site::CONFIG_FILE
        );
    }
    let listener = listen(args.port)?;
    let root = root.to_path_buf();
    let out_dir = root.join("public");
    let live = Arc::new(Live::default());
    let overrides = Overrides {
        base_url: None,
        claims: args.claims.map(ClaimPolicy::from),
    };
    build(&root, ui, &live, &overrides, &[]);
    ui.say(format!(
        "serving {} at http://127.0.0.1:{}/\nwatching tracebook.toml, content/, templates/, static/ and traces/; Ctrl-C stops",
        out_dir.display(),
        args.port
    ));
    let watcher = {
        let (root, ui, live) = (root.clone(), *ui, Arc::clone(&live));
        std::thread::spawn(move || watch_and_rebuild(&root, &ui, &live, &overrides))
    };
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let (out_dir, live) = (out_dir.clone(), Arc::clone(&live));
        std::thread::spawn(move || {
            // A reader closing the tab mid-response is not an error worth printing.
            let _ = http::handle(stream, &out_dir, &live);
        });
        if watcher.is_finished() {
            bail!("the file watcher stopped unexpectedly");
        }
    }
    Ok(())
}

/// Binds 127.0.0.1:port, with a message that says what to do when it cannot.
fn listen(port: u16) -> anyhow::Result<TcpListener> {
    if port == 0 {
        bail!("--port 0 would serve on a port chosen at random\n  hint: pass a port number from 1 to 65535, e.g. --port 3030");
    }
    TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|err| match err.kind() {
        ErrorKind::AddrInUse => anyhow::anyhow!(
            "port {port} on 127.0.0.1 is already in use (another `tracebook serve`, or another server)\n  hint: stop that server, or pass a free port with --port N"
        ),
        ErrorKind::PermissionDenied => anyhow::anyhow!(
            "not allowed to listen on port {port} (ports below 1024 need privileges)\n  hint: pass a port from 1024 to 65535 with --port N"
        ),
        _ => anyhow::anyhow!("cannot listen on 127.0.0.1:{port}: {err}\n  hint: pass another port with --port N"),
    })
}

fn watch_and_rebuild(root: &Path, ui: &Ui, live: &Live, overrides: &Overrides) {
    let mut seen = Snapshot::take(root);
    loop {
        std::thread::sleep(POLL);
        let now = Snapshot::take(root);
        if now == seen {
            continue;
        }
        std::thread::sleep(SETTLE);
        let now = Snapshot::take(root);
        let changed = now.changes(&seen, root);
        seen = now;
        build(root, ui, live, overrides, &changed);
    }
}

/// One build; its outcome goes to the terminal and to every open page.
fn build(root: &Path, ui: &Ui, live: &Live, overrides: &Overrides, changed: &[String]) {
    let started = Instant::now();
    let cause = match changed {
        [] => String::new(),
        [one] => format!(" after a change to {one}"),
        [first, rest @ ..] => format!(" after changes to {first} and {} more", rest.len()),
    };
    match tracebook_site::build_at(root, None, overrides) {
        Ok(report) => {
            ui.warnings(&report.warnings);
            ui.timings("build", &report.timings);
            ui.say(format!(
                "{} {} pages in {} ms{cause}",
                ui.paint(Style::Good, "built"),
                report.pages,
                started.elapsed().as_millis()
            ));
            live.publish(None);
        }
        Err(diagnostics) => {
            let text = diagnostics.to_string();
            eprintln!("{text}");
            eprintln!(
                "{} the build{cause} failed with {} error{}; still serving the previous build, waiting for the next change",
                ui.paint(Style::Error, "error:"),
                diagnostics.len(),
                if diagnostics.len() == 1 { "" } else { "s" }
            );
            live.publish(Some(text));
        }
    }
}
