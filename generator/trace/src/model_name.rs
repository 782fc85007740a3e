//! How a model is shown to readers and matched between a site and a trace, whatever the
//! author's machine: a model is shown by the name the site gives it (`[model] name`), else by
//! its folder's name or its hub id, never by an absolute path; and a trace's model matches
//! the site's whatever way the folder's path is spelled (`models/x`, `./models/x/`,
//! `/home/me/site/models/x`), since what decides is the weights' digest where the weights are
//! on the machine, and the folder's name where they are not.

use crate::meta::ModelInfo;

/// What readers see of a model named by `id` (a hub id such as `gpt2` or
/// `openai-community/gpt2`, a folder, or the built-in model): the id, unless it is written as
/// a path of the author's machine (absolute, `./`, `../`, `~`, a backslash, or more than one
/// `/`), which is shown by its last folder's name.
pub fn model_label(id: &str) -> String {
    let trimmed = id.trim_end_matches(['/', '\\']);
    let path_like = trimmed.starts_with(['/', '.', '~'])
        || trimmed.contains('\\')
        || trimmed.matches('/').count() > 1
        || trimmed.chars().nth(1) == Some(':');
    if path_like {
        folder_name(trimmed).to_string()
    } else {
        trimmed.to_string()
    }
}

/// The last component of a path written with `/` or `\`.
pub fn folder_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches(['/', '\\']);
    trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed)
}

/// Whether two ids name the same model when its weights are not on this machine to compare:
/// their last components agree (`models/x`, `./models/x/` and `/srv/site/models/x` do;
/// a hub id `gpt2` and its new home `openai-community/gpt2` do too).
pub fn same_model_id(a: &str, b: &str) -> bool {
    folder_name(a) == folder_name(b)
}

impl ModelInfo {
    /// The model as readers see it: its `name` if the site gave one, else [`model_label`].
    pub fn shown(&self) -> String {
        match &self.name {
            Some(name) if !name.trim().is_empty() => name.clone(),
            _ => model_label(&self.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_the_authors_machine_are_shown_by_their_folder() {
        assert_eq!(
            model_label("/tmp/author/models/gpt2-small-random"),
            "gpt2-small-random"
        );
        assert_eq!(model_label("./models/mine/"), "mine");
        assert_eq!(model_label("../shared/models/mine"), "mine");
        assert_eq!(model_label("~/models/mine"), "mine");
        assert_eq!(model_label(r"C:\Users\me\models\mine"), "mine");
        assert_eq!(model_label("a/b/c"), "c");
    }

    #[test]
    fn hub_ids_and_site_folders_are_shown_as_written() {
        assert_eq!(model_label("gpt2"), "gpt2");
        assert_eq!(
            model_label("openai-community/gpt2"),
            "openai-community/gpt2"
        );
        assert_eq!(model_label("tracebook-tiny-en"), "tracebook-tiny-en");
        assert_eq!(model_label("models/"), "models");
    }

    #[test]
    fn one_folder_spelled_three_ways_is_one_model() {
        assert!(same_model_id("models/x", "./models/x/"));
        assert!(same_model_id("models/x", "/srv/site/models/x"));
        assert!(same_model_id("gpt2", "openai-community/gpt2"));
        assert!(!same_model_id("gpt2", "distilgpt2"));
        assert!(!same_model_id("models/x", "models/y"));
    }
}
