//! `atom.xml`, with `base_url` set: the series as an Atom feed, one entry per article in series
//! order (an article in a part with the part's title as its category), each dated by its front matter's `date` (the newest date where an article has none).
//! The feed's own date is its newest entry's; with no dates at all, the build's time
//! (`SOURCE_DATE_EPOCH` when set, for reproducible builds).

use crate::base::escape;
use crate::base::paths;
use crate::load::content::Page;

/// The feed of `pages` (in series order) published under `base_url`; an article in one of
/// `parts` carries the part's title as its category.
pub fn atom(
    base_url: &str,
    title: &str,
    description: &str,
    pages: &[&Page],
    parts: &[&Page],
) -> String {
    let newest = pages
        .iter()
        .filter_map(|p| p.meta.date.as_ref().and_then(rfc3339))
        .max()
        .unwrap_or_else(build_time);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    let line = |xml: &mut String, tag: &str, text: &str| {
        xml.push_str(&format!("  <{tag}>{}</{tag}>\n", escape::html(text)));
    };
    line(&mut xml, "title", title);
    if !description.is_empty() {
        line(&mut xml, "subtitle", description);
    }
    line(&mut xml, "id", base_url);
    line(&mut xml, "updated", &newest);
    xml.push_str(&format!(
        "  <link rel=\"alternate\" href=\"{0}\"/>\n  <link rel=\"self\" href=\"{0}atom.xml\"/>\n  <author><name>{1}</name></author>\n",
        escape::html(base_url),
        escape::html(title)
    ));
    for page in pages {
        let url = format!("{base_url}{}", paths::encode(&page.output));
        let updated = page
            .meta
            .date
            .as_ref()
            .and_then(rfc3339)
            .unwrap_or_else(|| newest.clone());
        xml.push_str("  <entry>\n");
        xml.push_str(&format!(
            "    <title>{}</title>\n",
            escape::html(&page.meta.title)
        ));
        xml.push_str(&format!(
            "    <link rel=\"alternate\" href=\"{}\"/>\n",
            escape::html(&url)
        ));
        xml.push_str(&format!("    <id>{}</id>\n", escape::html(&url)));
        xml.push_str(&format!(
            "    <updated>{}</updated>\n",
            escape::html(&updated)
        ));
        let part = parts
            .iter()
            .find(|p| p.part.is_some() && p.part == page.part);
        if let Some(part) = part {
            xml.push_str(&format!(
                "    <category term=\"{}\"/>\n",
                escape::html(&part.meta.title)
            ));
        }
        if !page.meta.description.is_empty() {
            xml.push_str(&format!(
                "    <summary>{}</summary>\n",
                escape::html(&page.meta.description)
            ));
        }
        xml.push_str("  </entry>\n");
    }
    xml.push_str("</feed>\n");
    xml
}

/// A front-matter date as RFC 3339 (`2026-11-25` → `2026-11-25T00:00:00Z`); None without a day.
fn rfc3339(date: &toml::value::Datetime) -> Option<String> {
    let day = date.date?;
    let time = date.time.map_or("00:00:00".to_string(), |t| {
        format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second)
    });
    let offset = date.offset.map_or("Z".to_string(), |o| o.to_string());
    Some(format!(
        "{:04}-{:02}-{:02}T{time}{offset}",
        day.year, day.month, day.day
    ))
}

/// Now, or `SOURCE_DATE_EPOCH`, as RFC 3339 in UTC.
fn build_time() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    utc(seconds)
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ` (days to a civil date: Howard Hinnant's
/// algorithm; a dependency for this one conversion would be larger than it).
fn utc(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_rfc3339() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(1_795_564_800), "2026-11-25T00:00:00Z");
        assert_eq!(utc(951_782_400 + 3661), "2000-02-29T01:01:01Z");
        let day: toml::value::Datetime = "2026-11-25".parse().unwrap();
        assert_eq!(rfc3339(&day).unwrap(), "2026-11-25T00:00:00Z");
        let at: toml::value::Datetime = "2026-11-25T08:30:00+01:00".parse().unwrap();
        assert_eq!(rfc3339(&at).unwrap(), "2026-11-25T08:30:00+01:00");
        let time: toml::value::Datetime = "08:30:00".parse().unwrap();
        assert!(rfc3339(&time).is_none());
    }
}
