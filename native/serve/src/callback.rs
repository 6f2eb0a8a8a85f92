//! What a parent session is told when a child it started over the API finishes an input: seed
//! 003's callback, the child's result text and, when the child delivered one, its structured
//! result as JSON, so the parent's model reads both without asking for them.

use openagent_store::SessionResult;

/// The callback for `child`'s finished input: `completed` when the input ended as `completed`,
/// `failed` otherwise (a limit, an error, give-up, an abort).
pub fn callback_message(child: &str, completed: bool, result: &SessionResult) -> String {
    let status = if completed { "completed" } else { "failed" };
    let data = match &result.result_data {
        // A Value always serialises.
        Some(data) => format!(
            "\n## Structured Data\n\n```json\n{}\n```\n",
            serde_json::to_string_pretty(data).expect("JSON values serialise")
        ),
        None => String::new(),
    };
    format!(
        "<agent-callback session=\"{child}\" status=\"{status}\">\n## Child Result\n\n{}\n{data}</agent-callback>",
        result.result_text
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_text_result_has_no_data_section() {
        let result = SessionResult { result_text: "Two notes.".into(), result_data: None };
        assert_eq!(
            callback_message("r_child", true, &result),
            "<agent-callback session=\"r_child\" status=\"completed\">\n## Child Result\n\nTwo notes.\n</agent-callback>"
        );
    }

    #[test]
    fn structured_data_comes_as_indented_json_after_the_text() {
        let result = SessionResult { result_text: "Counted.".into(), result_data: Some(json!({"notes": 2})) };
        assert_eq!(
            callback_message("r_child", false, &result),
            "<agent-callback session=\"r_child\" status=\"failed\">\n## Child Result\n\nCounted.\n\n## Structured Data\n\n\
             ```json\n{\n  \"notes\": 2\n}\n```\n</agent-callback>"
        );
    }
}
