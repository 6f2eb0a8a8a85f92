//! Reading tool arguments. The loop validates arguments against each tool's schema before a tool
//! runs, but a tool still never trusts model output: a wrong or missing argument becomes a
//! [`ToolError`] that tells the model which argument to fix.

use serde_json::Value;

use super::ToolError;

/// A string argument that must be present.
pub(crate) fn required_str<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    optional_str(args, name)?.ok_or_else(|| ToolError::new(format!("Missing required argument \"{name}\" (a string).")))
}

pub(crate) fn optional_str<'a>(args: &'a Value, name: &str) -> Result<Option<&'a str>, ToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(wrong_type(name, "a string")),
    }
}

/// A non-negative integer argument. Integral floats such as `10.0` are accepted, since some
/// models write every number that way.
pub(crate) fn optional_u64(args: &Value, name: &str) -> Result<Option<u64>, ToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64).map(|f| f as u64))
            .map(Some)
            .ok_or_else(|| wrong_type(name, "a non-negative integer")),
        Some(_) => Err(wrong_type(name, "a non-negative integer")),
    }
}

/// Like [`optional_u64`], saturating on 32-bit targets (wasm32), where so large a count cannot be
/// reached anyway.
pub(crate) fn optional_usize(args: &Value, name: &str) -> Result<Option<usize>, ToolError> {
    Ok(optional_u64(args, name)?.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

pub(crate) fn optional_bool(args: &Value, name: &str) -> Result<Option<bool>, ToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(wrong_type(name, "true or false")),
    }
}

fn wrong_type(name: &str, expected: &str) -> ToolError {
    ToolError::new(format!("Argument \"{name}\" must be {expected}."))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn required_str_reads_or_names_the_missing_argument() {
        let args = json!({"file_path": "a.rs", "n": 3});
        assert_eq!(required_str(&args, "file_path"), Ok("a.rs"));
        assert_eq!(required_str(&args, "content"), Err(ToolError::new("Missing required argument \"content\" (a string).")));
        assert_eq!(required_str(&args, "n"), Err(ToolError::new("Argument \"n\" must be a string.")));
    }

    #[test]
    fn null_counts_as_absent() {
        let args = json!({"s": null, "n": null, "b": null});
        assert_eq!(optional_str(&args, "s"), Ok(None));
        assert_eq!(optional_u64(&args, "n"), Ok(None));
        assert_eq!(optional_bool(&args, "b"), Ok(None));
    }

    #[test]
    fn integers_accept_integral_floats_only() {
        let args = json!({"a": 7, "b": 10.0, "c": 1.5, "d": -1, "e": "5"});
        assert_eq!(optional_u64(&args, "a"), Ok(Some(7)));
        assert_eq!(optional_u64(&args, "b"), Ok(Some(10)));
        let err = Err(ToolError::new("Argument \"c\" must be a non-negative integer."));
        assert_eq!(optional_u64(&args, "c"), err);
        assert!(optional_u64(&args, "d").is_err());
        assert!(optional_u64(&args, "e").is_err());
    }

    #[test]
    fn booleans_must_be_booleans() {
        let args = json!({"yes": true, "str": "true"});
        assert_eq!(optional_bool(&args, "yes"), Ok(Some(true)));
        assert_eq!(optional_bool(&args, "str"), Err(ToolError::new("Argument \"str\" must be true or false.")));
    }
}
