//! Samples of the client features, the requests a server sends to the client: roots, sampling
//! and elicitation, with their results. The params and results that 2026-07-28 also carries
//! inside `InputRequiredResult` are built here too, for [`super::stateless`].

use std::collections::BTreeMap;

use mcp_types::{
    AudioContent, BooleanSchema, ContentBlock, CreateMessage, CreateMessageRequestParams,
    CreateMessageResult, Elicit, ElicitFormMode, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestURLParams, ElicitRequestedSchema, ElicitResult, ElicitValue, ElicitationComplete,
    ElicitationCompleteNotificationParams, EmptyParams, EnumSchema, ImageContent, IncludeContext,
    LegacyTitledEnumSchema, ListRoots, ListRootsResult, ModelHint, ModelPreferences,
    MultiSelectEnumSchema, NumberSchema, NumberSchemaType, PrimitiveSchemaDefinition, Role, Root,
    RootsListChanged, SamplingContent, SamplingMessage, SamplingMessageContentBlock,
    SingleSelectEnumSchema, StringFormat, StringSchema, TitledEnumItems, TitledEnumOption,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, ToolChoice, ToolChoiceMode,
    ToolResultContent, ToolUseContent, UntitledEnumItems, UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
};
use serde_json::json;

use super::Samples;
use super::values::{PNG, WAV, object, weather};

/// `roots/list` and `notifications/roots/list_changed`.
pub(super) fn roots(s: &mut Samples<'_>) {
    s.input_request::<ListRoots>("ListRootsRequest", EmptyParams::default());
    s.push("ListRootsResult", &list_roots());
    if s.stateful() {
        s.notification::<RootsListChanged>("RootsListChangedNotification", EmptyParams::default());
    }
}

pub(super) fn list_roots() -> ListRootsResult {
    ListRootsResult::new(vec![
        Root::new("file:///home/user/projects/frontend").with_name("Frontend"),
        Root::new("file:///home/user/projects/backend"),
    ])
}

/// `sampling/createMessage`: a plain request and, from 2025-11-25, a turn with tool use.
pub(super) fn sampling(s: &mut Samples<'_>) {
    s.input_request::<CreateMessage>("CreateMessageRequest", create_message(s));
    if s.since_2025_11_25() {
        s.input_request::<CreateMessage>("CreateMessageRequest", tool_turn(s));
    }
    let text = {
        let mut built =
            CreateMessageResult::new("claude-sonnet-4", SamplingContent::text("Paris."));
        built.stop_reason = Some("endTurn".to_owned());
        built
    };
    s.push("CreateMessageResult", &text);
    let image = CreateMessageResult::new("image-model", ImageContent::new(PNG, "image/png"));
    s.push("CreateMessageResult", &image);
    if s.since_2025_03_26() {
        let audio = CreateMessageResult::new("voice-model", AudioContent::new(WAV, "audio/wav"));
        s.push("CreateMessageResult", &audio);
    }
    if s.since_2025_11_25() {
        let tool_use = {
            let mut built = CreateMessageResult::new(
                "claude-sonnet-4",
                vec![
                    SamplingMessageContentBlock::text("Let me check."),
                    weather_call().into(),
                ],
            );
            built.stop_reason = Some("toolUse".to_owned());
            built
        };
        s.push("CreateMessageResult", &tool_use);
    }
}

/// Sampling params with every field the revision has.
pub(super) fn create_message(s: &Samples<'_>) -> CreateMessageRequestParams {
    let mut messages = vec![
        SamplingMessage::user_text("What is the capital of France?"),
        SamplingMessage::new(Role::User, ImageContent::new(PNG, "image/png")),
    ];
    if s.since_2025_03_26() {
        messages.push(SamplingMessage::new(
            Role::User,
            AudioContent::new(WAV, "audio/wav"),
        ));
    }
    {
        let mut built = CreateMessageRequestParams::new(messages, 100);
        built.model_preferences = Some({
            let mut built = ModelPreferences::default();
            built.hints = Some(vec![
                ModelHint::new("claude-sonnet"),
                ModelHint::new("sonnet"),
            ]);
            built.cost_priority = Some(0.3);
            built.speed_priority = Some(0.5);
            built.intelligence_priority = Some(0.8);
            built
        });
        built.system_prompt = Some("You are a helpful assistant.".to_owned());
        built.include_context = Some(IncludeContext::ThisServer);
        built.temperature = Some(0.7);
        built.stop_sequences = Some(vec!["\n\n".to_owned()]);
        built.metadata = Some(object(json!({"provider": {"topK": 40}})));
        built.tools = s.since_2025_11_25().then(|| vec![s.weather_tool()]);
        built.tool_choice = s
            .since_2025_11_25()
            .then(|| ToolChoice::new(ToolChoiceMode::Auto));
        built
    }
}

/// The model's call of the weather tool.
fn weather_call() -> ToolUseContent {
    ToolUseContent::new("call_1", "get_weather", object(json!({"city": "Paris"})))
}

/// A sampling conversation in which the model called a tool and gets its result (2025-11-25 and
/// later).
fn tool_turn(s: &Samples<'_>) -> CreateMessageRequestParams {
    let result = {
        let mut built = ToolResultContent::new("call_1", vec![ContentBlock::text("Sunny, 22.5°C")]);
        built.structured_content = Some(weather());
        built.is_error = Some(false);
        built
    };
    let messages = vec![
        SamplingMessage::user_text("What's the weather in Paris?"),
        SamplingMessage::new(Role::Assistant, weather_call()),
        SamplingMessage::new(Role::User, vec![result.into()]),
    ];
    {
        let mut built = CreateMessageRequestParams::new(messages, 200);
        built.tools = Some(vec![s.weather_tool()]);
        built.tool_choice = Some(ToolChoice::new(ToolChoiceMode::Required));
        built
    }
}

/// `elicitation/create` in form and URL mode, its answers and
/// `notifications/elicitation/complete` (2025-06-18 and later).
pub(super) fn elicitation(s: &mut Samples<'_>) {
    if !s.rev.has_elicitation() {
        return;
    }
    let form = {
        let mut built =
            ElicitRequestFormParams::new("Please fill in your profile", requested_schema(s));
        built.mode = s.rev.has_url_elicitation().then_some(ElicitFormMode::Form);
        built
    };
    s.input_request::<Elicit>("ElicitRequest", form.into());
    if s.rev.has_url_elicitation() {
        let url = {
            let mut built = ElicitRequestURLParams::new(
                "Please sign in to authorize access",
                "https://example.com/oauth/authorize?state=abc",
            );
            built.elicitation_id = s.stateful().then(|| "elicit-42".to_owned());
            built
        };
        s.input_request::<Elicit>("ElicitRequest", ElicitRequestParams::Url(url));
        s.push("ElicitResult", &ElicitResult::accept(None));
    }
    s.push("ElicitResult", &ElicitResult::accept(Some(form_answers(s))));
    s.push("ElicitResult", &ElicitResult::decline());
    s.push("ElicitResult", &ElicitResult::cancel());
    if s.rev.has_url_elicitation() && s.stateful() {
        s.notification::<ElicitationComplete>("ElicitationCompleteNotification", {
            let mut built = ElicitationCompleteNotificationParams::default();
            built.elicitation_id = "elicit-42".to_owned();
            built
        });
    }
}

/// A form with a field of every kind the revision has.
pub(super) fn requested_schema(s: &Samples<'_>) -> ElicitRequestedSchema {
    let defaults = s.since_2025_11_25();
    let options = || {
        vec![
            TitledEnumOption::new("red", "Red"),
            TitledEnumOption::new("green", "Green"),
        ]
    };
    let strings = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let mut fields: Vec<(&str, PrimitiveSchemaDefinition)> = vec![
        (
            "name",
            {
                let mut built = StringSchema::default();
                built.title = Some("Name".to_owned());
                built.description = Some("Your full name".to_owned());
                built.min_length = Some(1);
                built.max_length = Some(100);
                built.default = defaults.then(|| "Ada".to_owned());
                built
            }
            .into(),
        ),
        (
            "email",
            {
                let mut built = StringSchema::default();
                built.format = Some(StringFormat::Email);
                built
            }
            .into(),
        ),
        (
            "birthday",
            {
                let mut built = StringSchema::default();
                built.format = Some(StringFormat::Date);
                built
            }
            .into(),
        ),
        (
            "age",
            {
                let mut built = NumberSchema::default();
                built.r#type = NumberSchemaType::Integer;
                built.minimum = Some(0.0);
                built.maximum = Some(150.0);
                built.default = defaults.then_some(30.0);
                built
            }
            .into(),
        ),
        (
            "rating",
            {
                let mut built = NumberSchema::default();
                built.r#type = NumberSchemaType::Number;
                built.title = Some("Rating".to_owned());
                built
            }
            .into(),
        ),
        (
            "newsletter",
            {
                let mut built = BooleanSchema::default();
                built.title = Some("Subscribe".to_owned());
                built.default = Some(false);
                built
            }
            .into(),
        ),
        (
            "color",
            EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled({
                let mut built = UntitledSingleSelectEnumSchema::default();
                built.r#enum = strings(&["red", "green"]);
                built.default = defaults.then(|| "red".to_owned());
                built
            }))
            .into(),
        ),
        (
            "size",
            EnumSchema::LegacyTitled({
                let mut built = LegacyTitledEnumSchema::default();
                built.r#enum = strings(&["s", "m", "l"]);
                built.enum_names = Some(strings(&["Small", "Medium", "Large"]));
                built
            })
            .into(),
        ),
    ];
    if s.since_2025_11_25() {
        fields.extend([
            (
                "favorite",
                EnumSchema::SingleSelect(SingleSelectEnumSchema::Titled({
                    let mut built = TitledSingleSelectEnumSchema::default();
                    built.one_of = options();
                    built.default = Some("green".to_owned());
                    built
                }))
                .into(),
            ),
            (
                "topics",
                EnumSchema::MultiSelect(MultiSelectEnumSchema::Untitled({
                    let mut built = UntitledMultiSelectEnumSchema::default();
                    built.min_items = Some(1);
                    built.max_items = Some(2);
                    built.items = {
                        let mut built = UntitledEnumItems::default();
                        built.r#enum = strings(&["news", "sports", "weather"]);
                        built
                    };
                    built.default = Some(strings(&["news"]));
                    built
                }))
                .into(),
            ),
            (
                "palette",
                EnumSchema::MultiSelect(MultiSelectEnumSchema::Titled({
                    let mut built = TitledMultiSelectEnumSchema::default();
                    built.items = {
                        let mut built = TitledEnumItems::default();
                        built.any_of = options();
                        built
                    };
                    built
                }))
                .into(),
            ),
        ]);
    }
    {
        let mut built = ElicitRequestedSchema::default();
        built.schema = s
            .since_2025_11_25()
            .then(|| "https://json-schema.org/draft/2020-12/schema".to_owned());
        built.properties = fields
            .into_iter()
            .map(|(name, field)| (name.to_owned(), field))
            .collect();
        built.required = Some(vec!["name".to_owned(), "email".to_owned()]);
        built
    }
}

/// The user's answers to [`requested_schema`].
pub(super) fn form_answers(s: &Samples<'_>) -> BTreeMap<String, ElicitValue> {
    let mut answers: BTreeMap<String, ElicitValue> = BTreeMap::from([
        ("name".to_owned(), "Ada Lovelace".into()),
        ("email".to_owned(), "ada@example.com".into()),
        ("age".to_owned(), 36.into()),
        ("newsletter".to_owned(), true.into()),
        ("color".to_owned(), "green".into()),
    ]);
    if s.since_2025_11_25() {
        answers.insert(
            "topics".to_owned(),
            vec!["news".to_owned(), "weather".to_owned()].into(),
        );
    }
    answers
}
