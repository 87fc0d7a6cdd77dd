//! `gearshift agent` as its user unit starts it, on a private bus: the
//! person's configuration directory and `$PATH` under a scratch
//! directory, the private bus as both the system bus (the helper) and the
//! session bus (where a test's GameMode is, and where the agent watches for
//! one). The rules tests and the agent's bench start it the same way.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Instant;

use super::bus::{wait_for, Bus};

/// A running agent and its log; killed when dropped.
pub struct Agent {
    pub child: Child,
    log: PathBuf,
}

impl Agent {
    /// Starts the agent with `work/config` as `$XDG_CONFIG_HOME` and
    /// `work/bin` first on `$PATH`, on `root` where one is given, and
    /// waits until it follows its rules.
    pub fn start(bus: &Bus, work: &Path, root: Option<&Path>) -> Agent {
        let log = work.join(format!("agent-{}.log", Instant::now().elapsed().as_nanos()));
        let mut command = bus.command(env!("CARGO_BIN_EXE_gearshift"));
        if let Some(root) = root {
            command.arg("--root").arg(root);
        }
        let child = command
            .arg("agent")
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .env("XDG_CONFIG_HOME", work.join("config"))
            .env("PATH", format!("{}:/usr/bin:/bin", work.join("bin").display()))
            .stdin(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let agent = Agent { child, log };
        wait_for(|| agent.said().contains("following"), "the agent to start");
        agent
    }

    /// What it said on its standard error so far.
    pub fn said(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
