//! `deploy ssh`: the command each host runs for its part, and how to collect the stores,
//! for `ssh`, `pdsh` or any tool that starts a command on a host. Nothing is run here.

use super::{DeployError, Deployment};

/// What one host does, and how its store comes back.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCommands {
    pub host: String,
    /// `ssh HOST '<searchbench ...>'`
    pub run: String,
    /// `scp HOST:<store> .`
    pub collect: String,
    /// The store's name where it is collected.
    pub store: String,
}

/// What every ssh and scp line here says: never ask (a password or host key prompt would hold
/// the step for ever), give up on a host not reached within 15 s, and notice one gone silent.
pub const SSH_OPTIONS: &str = "-o BatchMode=yes -o ConnectTimeout=15 -o ServerAliveInterval=30";

/// The line that copies the local file `local` to `remote` (relative to the home folder) on
/// `host`, its folder made first. ssh hands its command to the host's shell, which parses it
/// again: the command is quoted for that shell, then the whole for this one (a folder named
/// `x$(touch /tmp/p)` is a name there, never a command). The bytes go over ssh's own input,
/// not scp, whose remote path some versions parse in a shell and others take as written.
pub fn copy_line(host: &str, local: &str, remote: &str) -> String {
    let dir = std::path::Path::new(remote)
        .parent()
        .map(|p| p.display().to_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".into());
    let there = format!("mkdir -p {} && cat > {}", quote(&dir), quote(remote));
    format!(
        "ssh {SSH_OPTIONS} {} {} < {}",
        quote(host),
        quote(&there),
        quote(local)
    )
}

/// `s` quoted for a POSIX shell (as it is when it needs no quotes).
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The command line of part `part` (1-based) on its host, with `bin` as the program.
pub fn part_command(d: &Deployment, bin: &str, part: u32, store: &str) -> String {
    std::iter::once(bin.to_string())
        .chain(d.args.iter().cloned())
        .chain(d.part_flags(&part.to_string(), store))
        .map(|a| quote(&a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One host per part, in order: host I runs part I.
pub fn commands(
    d: &Deployment,
    hosts: &[String],
    bin: &str,
) -> Result<Vec<HostCommands>, DeployError> {
    d.check()?;
    if hosts.len() != d.parts as usize {
        return Err(DeployError::Invalid(format!(
            "{} host(s) for {} parts: one host a part",
            hosts.len(),
            d.parts
        )));
    }
    if let Some(bad) = hosts
        .iter()
        .find(|h| h.is_empty() || h.starts_with('-') || h.chars().any(char::is_whitespace))
    {
        return Err(DeployError::Invalid(format!("{bad:?} is not a host")));
    }
    Ok(hosts
        .iter()
        .zip(1..)
        .map(|(host, part)| {
            let store = format!("searchbench-{}-part{part}.db", d.group);
            HostCommands {
                host: host.clone(),
                // `-n`: started in the background, ssh must not read the terminal.
                run: format!(
                    "ssh -n {SSH_OPTIONS} {} {}",
                    quote(host),
                    quote(&part_command(d, bin, part, &store))
                ),
                collect: format!("scp {SSH_OPTIONS} {}:{store} .", quote(host)),
                store,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quoted words come back whole through a real shell, whatever they hold.
    #[test]
    fn quoted_words_come_back_whole_through_sh() {
        let words = [
            "plain",
            "two words",
            "it's",
            "$HOME",
            "a\"b",
            "",
            "*",
            "x;y",
            "--index=a b",
        ];
        let line = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        let out = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("for a in {line}; do printf '%s|' \"$a\"; done"))
            .output()
            .unwrap();
        let expected: String = words.iter().map(|w| format!("{w}|")).collect();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    }

    /// The copy line, run by a shell whose `ssh` hands its command to another shell as a
    /// host does: a file and a folder named with spaces, quotes and `$(…)` arrive under those
    /// names, and nothing in them runs.
    #[test]
    fn a_file_copied_to_a_host_keeps_its_name_and_runs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("a b$(touch ran-here).json");
        std::fs::write(&local, "{}").unwrap();
        let remote = "searchbench-files/my ops/x'$(touch ran-there)`touch t`.json";
        let line = copy_line("h", &local.display().to_string(), remote);
        let script = format!(
            "ssh() {{ while [ \"$1\" != h ]; do shift; done; shift; sh -c \"$*\"; }}\n{line}"
        );
        let out = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(remote)).unwrap(),
            "{}"
        );
        for ran in ["ran-here", "ran-there", "t"] {
            assert!(!dir.path().join(ran).exists(), "{ran} ran");
        }
    }

    #[test]
    fn one_host_a_part_each_with_its_own_store() {
        let d = Deployment {
            group: "g1".into(),
            parts: 2,
            start_at: "2026-11-26T20:00:00Z".into(),
            args: vec![
                "ingest".into(),
                "logs".into(),
                "--url".into(),
                "http://es:9200".into(),
            ],
            files: Vec::new(),
        };
        let hosts = commands(&d, &["a".into(), "b.example".into()], "searchbench").unwrap();
        assert_eq!(
            hosts[1].run,
            format!(
                "ssh -n {SSH_OPTIONS} b.example 'searchbench ingest logs --url http://es:9200 \
                 --part 2/2 --group g1 --start-at 2026-11-26T20:00:00Z --store \
                 searchbench-g1-part2.db'"
            )
        );
        assert_eq!(
            hosts[0].collect,
            format!("scp {SSH_OPTIONS} a:searchbench-g1-part1.db .")
        );
        let e = commands(&d, &["a".into()], "searchbench").unwrap_err();
        assert!(e.to_string().contains("one host a part"), "{e}");
    }
}
