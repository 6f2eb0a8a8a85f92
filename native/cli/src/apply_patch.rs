//! `openagent apply-patch [FILE]`: a v4a patch applied in the current directory by the agent's
//! own tool.

use std::io::Read;
use std::path::PathBuf;

use openagent_core::tools::{ApplyPatchTool, ToolContext, ToolExecutor};
use openagent_host::{LocalEnvironment, NativeRuntime};
use serde_json::json;

/// The patch text of `openagent apply-patch [FILE]`: the file's, or stdin's for none or `-`.
pub fn read_patch(file: Option<PathBuf>) -> Result<String, String> {
    let Some(file) = file.filter(|file| file.as_os_str() != "-") else {
        let mut patch = String::new();
        std::io::stdin().read_to_string(&mut patch).map_err(|err| format!("could not read the patch from stdin: {err}"))?;
        return Ok(patch);
    };
    let shown = file.display();
    match std::fs::read_to_string(&file) {
        Ok(patch) => Ok(patch),
        // The text itself given as the argument, as `apply-patch` once took it.
        Err(_) if file.to_string_lossy().starts_with("*** Begin Patch") => {
            Err("apply-patch takes the file holding the patch, not its text: give the patch on stdin, or save it to a file"
                .into())
        }
        Err(err) if err.kind() == std::io::ErrorKind::IsADirectory => {
            Err(format!("cannot read the patch file {shown}: it is a directory; name the file holding the patch"))
        }
        Err(err) => Err(format!("cannot read the patch file {shown}: {err}")),
    }
}

pub fn apply_patch(patch: String) -> Result<String, String> {
    let env = LocalEnvironment::new(".").map_err(|err| err.to_string())?;
    // apply_patch runs no commands, so the timeouts are never used.
    let ctx = ToolContext::new(&env, 0, 0);
    let args = json!({ "patch": patch });
    let output = NativeRuntime::new().block_on(ApplyPatchTool.execute(&args, &ctx)).map_err(|err| err.0)?;
    Ok(output.text)
}
