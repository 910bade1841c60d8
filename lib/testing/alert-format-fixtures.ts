/**
 * Alert payloads as each tool documents them, for the unit, integration and end-to-end tests of the receiver's formats.
 * Each builder takes what a test varies (the state, and an identity so tests do not share alerts) and keeps the rest
 * as the documentation shows it. No imports: the end-to-end suite loads this file too.
 */

// https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/
export function grafanaWebhook(status: "firing" | "resolved", fingerprint = "c6eadffa33fcdf37") {
  const endsAt = status === "resolved" ? "2021-10-12T10:21:03.157076+02:00" : "0001-01-01T00:00:00Z";
  return {
    receiver: "My Super Webhook",
    status,
    orgId: 1,
    alerts: [
      {
        status,
        // The documented labels, with a severity label as rules commonly carry.
        labels: { alertname: "High memory usage", team: "blue", zone: "us-1", severity: "warning" },
        annotations: {
          description: "The system has high memory usage",
          runbook_url: "https://myrunbook.com/runbook/1234",
          summary: "This alert was triggered for zone us-1",
        },
        startsAt: "2021-10-12T09:51:03.157076+02:00",
        endsAt,
        generatorURL: "https://play.grafana.org/alerting/1afz29v7z/edit",
        fingerprint,
        silenceURL: "https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1",
        dashboardURL: "https://play.grafana.org/d/000000012",
        panelURL: "https://play.grafana.org/d/000000012?viewPanel=2",
        values: { B: 44.23943737541908, C: 1 },
      },
    ],
    groupLabels: {},
    commonLabels: { team: "blue" },
    commonAnnotations: {},
    externalURL: "https://play.grafana.org/",
    version: "1",
    groupKey: '{}:{alertname="High memory usage"}',
    truncatedAlerts: 0,
    title: `[${status.toUpperCase()}:1]  (blue)`,
    state: status === "firing" ? "alerting" : "ok",
    message: "**Firing**\n\nLabels:\n - alertname = High memory usage\n - team = blue\n - zone = us-1\n",
  };
}

// https://developer.pagerduty.com/docs/events-API-v2/trigger-events/
export function pagerDutyTrigger(routingKey: string, dedupKey = "samplekeyhere") {
  return {
    payload: {
      summary: "Example alert on host1.example.com",
      timestamp: "2015-07-17T08:42:58.315+0000",
      source: "monitoringtool:cloudvendor:central-region-dc-01:852559987:cluster/api-stats-prod-003",
      severity: "info",
      component: "postgres",
      group: "prod-datapipe",
      class: "deploy",
      custom_details: { "ping time": "1500ms", "load avg": 0.75 },
    },
    routing_key: routingKey,
    dedup_key: dedupKey,
    images: [{ src: "https://www.pagerduty.com/wp-content/uploads/2016/05/pagerduty-logo-green.png", href: "https://example.com/", alt: "Example text" }],
    links: [{ href: "https://example.com/", text: "Link text" }],
    event_action: "trigger",
    client: "Example Monitoring Service",
    client_url: "https://example.com",
  };
}

// https://developer.pagerduty.com/docs/events-API-v2/acknowledge-events/ and …/resolve-events/
export function pagerDutyFollowUp(routingKey: string, action: "acknowledge" | "resolve", dedupKey = "samplekeyhere") {
  return { routing_key: routingKey, dedup_key: dedupKey, event_action: action };
}

// https://learn.microsoft.com/en-us/azure/azure-monitor/alerts/alerts-payload-samples
export function azureCommonAlert(condition: "Fired" | "Resolved", originAlertId = "3f2d4487-b0fc-4125-8bd5-7ad17384221e_PipeLineAlertRG_microsoft.insights_metricAlerts_WCUS-R2-Gen2_-117781227") {
  return {
    schemaId: "azureMonitorCommonAlertSchema",
    data: {
      essentials: {
        alertId: "/subscriptions/11111111-1111-1111-1111-111111111111/providers/Microsoft.AlertsManagement/alerts/aaaa0a0a-bb1b-cc2c-dd3d-eeeeee4e4e4e",
        alertRule: "WCUS-R2-Gen2",
        severity: "Sev3",
        signalType: "Metric",
        monitorCondition: condition,
        monitoringService: "Platform",
        alertTargetIDs: [
          "/subscriptions/11111111-1111-1111-1111-111111111111/resourcegroups/pipelinealertrg/providers/microsoft.compute/virtualmachines/wcus-r2-gen2",
        ],
        configurationItems: ["wcus-r2-gen2"],
        originAlertId,
        firedDateTime: "2019-03-22T13:58:24.3713213Z",
        ...(condition === "Resolved" ? { resolvedDateTime: "2019-03-22T14:03:16.2246313Z" } : {}),
        description: "",
        essentialsVersion: "1.0",
        alertContextVersion: "1.0",
      },
      alertContext: {
        properties: null,
        conditionType: "SingleResourceMultipleMetricCriteria",
        condition: {
          windowSize: "PT5M",
          allOf: [
            {
              metricName: "Percentage CPU",
              metricNamespace: "Microsoft.Compute/virtualMachines",
              operator: "GreaterThan",
              threshold: "25",
              timeAggregation: "Average",
              dimensions: [{ name: "ResourceId", value: "3efad9dc-3d50-4eac-9c87-8b3fd6f97e4e" }],
              metricValue: 7.727,
            },
          ],
        },
      },
      customProperties: { Key1: "Value1", Key2: "Value2" },
    },
  };
}

// https://docs.aws.amazon.com/sns/latest/dg/http-notification-json.html (the envelope) with the alarm message of
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html (Amazon SNS notifications)
export function cloudWatchAlarmNotification(state: "ALARM" | "OK" | "INSUFFICIENT_DATA", alarmName = "HighCPUUtilization") {
  const alarm = {
    AlarmName: alarmName,
    AlarmDescription: "CPU above 80% on the web tier",
    AWSAccountId: "123456789012",
    AlarmConfigurationUpdatedTimestamp: "2023-05-30T11:05:13.546+0000",
    NewStateValue: state,
    NewStateReason: "Threshold Crossed: 1 out of the last 1 datapoints [91.2 (30/05/23 11:07:00)] was greater than the threshold (80.0).",
    StateChangeTime: state === "OK" ? "2023-05-30T11:20:27.123+0000" : "2023-05-30T11:08:27.123+0000",
    Region: "US East (N. Virginia)",
    AlarmArn: `arn:aws:cloudwatch:us-east-1:123456789012:alarm:${alarmName}`,
    OldStateValue: state === "OK" ? "ALARM" : "OK",
    OKActions: [],
    AlarmActions: ["arn:aws:sns:us-east-1:123456789012:MyTopic"],
    InsufficientDataActions: [],
    Trigger: {
      MetricName: "CPUUtilization",
      Namespace: "AWS/EC2",
      StatisticType: "Statistic",
      Statistic: "AVERAGE",
      Unit: null,
      Dimensions: [{ value: "i-0123456789abcdef0", name: "InstanceId" }],
      Period: 60,
      EvaluationPeriods: 1,
      ComparisonOperator: "GreaterThanThreshold",
      Threshold: 80.0,
      TreatMissingData: "missing",
      EvaluateLowSampleCountPercentile: "",
    },
  };
  return {
    Type: "Notification",
    MessageId: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
    TopicArn: "arn:aws:sns:us-east-1:123456789012:MyTopic",
    Subject: `${state}: "${alarmName}" in US East (N. Virginia)`,
    Message: JSON.stringify(alarm),
    Timestamp: "2023-05-30T11:08:27.163Z",
    SignatureVersion: "1",
    Signature: "EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=",
    SigningCertURL: "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem",
    UnsubscribeURL: "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:123456789012:MyTopic:c9135db0-26c4-47ec-8998-413945fb5a96",
  };
}

// https://docs.aws.amazon.com/sns/latest/dg/http-subscription-confirmation-json.html
export function snsSubscriptionConfirmation(subscribeUrl = "https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-west-2:123456789012:MyTopic&Token=2336412f37") {
  return {
    Type: "SubscriptionConfirmation",
    MessageId: "165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
    Token: "2336412f37",
    TopicArn: "arn:aws:sns:us-west-2:123456789012:MyTopic",
    Message: "You have chosen to subscribe to the topic arn:aws:sns:us-west-2:123456789012:MyTopic.\nTo confirm the subscription, visit the SubscribeURL included in this message.",
    SubscribeURL: subscribeUrl,
    Timestamp: "2012-04-26T20:45:04.751Z",
    SignatureVersion: "1",
    Signature: "EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=",
    SigningCertURL: "https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem",
  };
}

// https://docs.sentry.io/organization/integrations/integration-platform/webhooks/issue-alerts/
export function sentryIssueAlert(issueId = "1117540176") {
  return {
    action: "triggered",
    actor: { id: "sentry", name: "Sentry", type: "application" },
    data: {
      event: {
        event_id: "e4874d664c3540c1a32eab185f12c5ab",
        issue_id: issueId,
        issue_url: `https://sentry.io/api/0/issues/${issueId}/`,
        url: "https://sentry.io/api/0/projects/test-org/front-end/events/e4874d664c3540c1a32eab185f12c5ab/",
        web_url: "https://sentry.io/organizations/test-org/issues/1117540176/events/e4874d664c3540c1a32eab185f12c5ab/",
        title: "ReferenceError: blooopy is not defined",
        culprit: "?(<anonymous>)",
        level: "error",
        platform: "javascript",
        datetime: "2019-08-19T21:06:17.846000Z",
        timestamp: 1566248777.846,
        environment: "prod",
        message: "",
        project: 1,
        tags: [
          ["browser", "Chrome 75.0.3770"],
          ["level", "error"],
        ],
      },
      triggered_rule: "Very Important Alert Rule!",
      issue_alert: { title: "Very Important Alert Rule!", settings: [{ name: "channel", value: "#general" }] },
    },
    installation: { uuid: "a8e5d37a-696c-4c54-adb5-b3f28d64c7de" },
  };
}

// https://docs.sentry.io/organization/integrations/integration-platform/webhooks/issues/
export function sentryIssueWebhook(action: "created" | "resolved" | "assigned", issueId = "1117540176") {
  return {
    action,
    actor: { id: "sentry", name: "Sentry", type: "application" },
    data: {
      issue: {
        id: issueId,
        shortId: "FRONT-END-1",
        title: "ReferenceError: blooopy is not defined",
        culprit: "?(<anonymous>)",
        level: "error",
        status: action === "resolved" ? "resolved" : "unresolved",
        firstSeen: "2019-08-19T21:06:17.846000Z",
        lastSeen: "2019-08-19T21:06:17.846000Z",
        project: { id: "1", name: "front-end", slug: "front-end", platform: "javascript" },
        web_url: `https://sentry.io/organizations/test-org/issues/${issueId}/`,
      },
    },
    installation: { uuid: "a8e5d37a-696c-4c54-adb5-b3f28d64c7de" },
  };
}

// https://docs.datadoghq.com/integrations/webhooks/ (the default payload, its variables filled in as Datadog does)
export function datadogWebhook(transition: "Triggered" | "Recovered", monitor = "CPU load is high", priority = "P2") {
  return {
    body: `%%%\nCPU load is above 4 on host:web-1\n\n[[Monitor Status](https://app.datadoghq.com/monitors/1234?to_ts=1567692820000)] · [[Edit Monitor](https://app.datadoghq.com/monitors#1234/edit)]\n%%%`,
    last_updated: transition === "Recovered" ? "1567693720000" : "1567692820000",
    event_type: "query_alert_monitor",
    title: `[${priority}] [${transition} on {host:web-1}] ${monitor}`,
    date: "1567692820000",
    org: { id: "11287", name: "Example Org" },
    id: transition === "Recovered" ? "5212957451218446587" : "5212957451218446585",
  };
}

// https://cloud.google.com/monitoring/support/notification-options#schema-webhook (schema version 1.2)
export function googleCloudIncident(state: "open" | "closed") {
  const closed = state === "closed";
  return {
    incident: {
      incident_id: "0.opqiw61fsv7p",
      scoping_project_id: "internal-project",
      scoping_project_number: 12345,
      url: "https://console.cloud.google.com/monitoring/alerting/incidents/0.lxfiw61fsv7p?project=internal-project",
      started_at: 1577840461,
      ended_at: closed ? 1577877071 : null,
      state,
      resource_id: "11223344",
      resource_name: "internal-project gke-cluster-1-default-pool-e2df4cbd-dgp3",
      resource_display_name: "gke-cluster-1-default-pool-e2df4cbd-dgp3",
      resource_type_display_name: "VM Instance",
      resource: { type: "gce_instance", labels: { instance_id: "11223344", project_id: "internal-project", zone: "us-central1-c" } },
      metric: { type: "compute.googleapis.com/instance/cpu/utilization", displayName: "CPU utilization", labels: { instance_name: "the name of the VM instance" } },
      metadata: { system_labels: { labelkey: "labelvalue" }, user_labels: { labelkey: "labelvalue" } },
      policy_name: "Monitor-Project-Cluster",
      policy_user_labels: { "user-label-1": "important label", "user-label-2": "another label" },
      documentation: { content: "TEST ALERT\n\npolicy.name=Monitor-Project-Cluster", mime_type: "text/markdown", subject: "ALERT - No severity" },
      condition: { name: "projects/internal-project/alertPolicies/1234567890123456789/conditions/1234567890123456789", displayName: "VM Instance - CPU utilization [MAX]" },
      condition_name: "VM Instance - CPU utilization [MAX]",
      threshold_value: "0.9",
      observed_value: "0.835",
      severity: "Warning",
      summary: "CPU utilization for internal-project gke-cluster-1-default-pool-e2df4cbd-dgp3 is above the threshold of 0.9 with a value of 0.835.",
    },
    version: "1.2",
  };
}

// https://docs.newrelic.com/docs/alerts/get-notified/notification-integrations/#webhook: what the default payload
// template of a workflow's webhook sends.
export function newRelicIssue(state: "ACTIVATED" | "CLOSED") {
  return {
    id: "6f3a2d16-8a1c-4f4f-9c8e-1c1c3c5b2a10",
    issueUrl: "https://radar-api.service.newrelic.com/accounts/1/issues/6f3a2d16-8a1c-4f4f-9c8e-1c1c3c5b2a10",
    title: "CPU usage > 90% on checkout-web",
    priority: "HIGH",
    impactedEntities: ["checkout-web"],
    totalIncidents: 1,
    state,
    trigger: state === "CLOSED" ? "INCIDENT_CLOSED" : "STATE_CHANGE",
    isCorrelated: false,
    createdAt: 1772366400000,
    updatedAt: state === "CLOSED" ? 1772367300000 : 1772366400000,
    sources: ["newrelic"],
    alertPolicyNames: ["Checkout"],
    alertConditionNames: ["High CPU"],
    workflowName: "Checkout on call",
  };
}

/**
 * What the README's Zabbix webhook media type posts: its parameters (Zabbix's macros, resolved) but the URL and key. A
 * problem's notification leaves the recovery macros unresolved, as Zabbix writes macros it cannot resolve.
 */
export function zabbixEvent(value: "1" | "0") {
  const recovery = value === "0";
  return {
    event_id: "51482",
    event_value: value,
    event_name: "High CPU utilization (over 90% for 5m)",
    event_severity: "Average",
    event_nseverity: "3",
    event_date: "2026.03.01",
    event_time: "11:55:00",
    event_recovery_date: recovery ? "2026.03.01" : "{EVENT.RECOVERY.DATE}",
    event_recovery_time: recovery ? "12:10:00" : "{EVENT.RECOVERY.TIME}",
    event_opdata: "Current utilization: 96.2 %",
    host_name: "web-01",
    host_group: "Linux servers",
    trigger_description: "CPU utilization is too high. The system might be slow to respond.",
    event_url: "https://zabbix.example.com/tr_events.php?triggerid=23296&eventid=51482",
  };
}

/** What the README's Nagios and Icinga notification command posts for a service. */
export function nagiosNotification(type: "PROBLEM" | "ACKNOWLEDGEMENT" | "RECOVERY") {
  return {
    notification_type: type,
    host_name: "db-02",
    service_description: "Disk /var",
    state: type === "RECOVERY" ? "OK" : "CRITICAL",
    output: type === "RECOVERY" ? "DISK OK - free space: /var 12044 MB (61%)" : "DISK CRITICAL - free space: /var 412 MB (2%)",
    timestamp: type === "RECOVERY" ? "1772367000" : "1772366100",
  };
}

/**
 * What Kibana's webhook connector posts with the README's body: Mustache variables of the rule, the alert and its
 * context, rendered (`action_group` is the rule's group when it fires, `recovered` on the recovery action).
 */
export function kibanaAction(actionGroup: "threshold met" | "recovered") {
  const recovered = actionGroup === "recovered";
  return {
    rule_id: "c3c5e0a0-5d6f-11ee-8c99-0242ac120002",
    rule_name: "Checkout latency above 2 s",
    alert_id: "checkout-web",
    action_group: actionGroup,
    reason: recovered ? "Checkout latency is back below 2 s" : "Checkout latency is 3.4 s, above the threshold of 2 s over the last 5 minutes",
    date: recovered ? "2026-03-01T12:20:00.000Z" : "2026-03-01T12:00:00.000Z",
    url: "https://kibana.example.com/app/observability/alerts/5b8c2a62-bd6b-4f1b-9d7a-0a3c8f0e7a11",
    severity: "high",
    hosts: "checkout-web-1",
  };
}

// https://github.com/louislam/uptime-kuma/blob/master/server/notification-providers/webhook.js ("Preset -
// application/json": the heartbeat and monitor as Uptime Kuma's beans serialize them, and the notification's text).
export function uptimeKumaWebhook(status: 0 | 1 | 2 | 3) {
  const down = status === 0;
  return {
    heartbeat: {
      monitorID: 7,
      status,
      time: down ? "2026-03-01 11:58:30.120" : "2026-03-01 12:03:30.450",
      msg: down ? "connect ECONNREFUSED 10.0.0.12:443" : "200 - OK",
      ping: down ? null : 42,
      important: true,
      duration: 60,
      timezone: "Europe/Berlin",
      timezoneOffset: "+01:00",
      localDateTime: down ? "2026-03-01 12:58:30" : "2026-03-01 13:03:30",
    },
    monitor: {
      id: 7,
      name: "Storefront",
      description: null,
      pathName: "Storefront",
      parent: null,
      childrenIDs: [],
      url: "https://shop.example.com/health",
      method: "GET",
      hostname: null,
      port: null,
      maxretries: 1,
      weight: 2000,
      active: true,
      type: "http",
      interval: 60,
      retryInterval: 60,
      keyword: null,
      tags: [],
    },
    msg: down ? "[Storefront] [🔴 Down] connect ECONNREFUSED 10.0.0.12:443" : "[Storefront] [✅ Up] 200 - OK",
  };
}

// https://grafana.com/docs/oncall/latest/configure/integrations/references/formatted-webhook/
export function grafanaOnCallWebhook(state: "alerting" | "ok") {
  return {
    alert_uid: "08d6891a-835c-e661-39fa-96b6a9e26552",
    title: "The whole system is down",
    image_url: "https://upload.wikimedia.org/wikipedia/commons/e/ee/Grumpy_Cat_by_Gage_Skidmore.jpg",
    state,
    link_to_upstream_details: "https://en.wikipedia.org/wiki/Downtime",
    message: "Smth happened. Oh no!",
  };
}

// https://docs.opsgenie.com/docs/alert-api#create-alert (the documented example request's body)
export function opsgenieCreateAlert() {
  return {
    message: "An example alert message",
    alias: "Life is too short for no alias",
    description: "Every alert needs a description",
    responders: [
      { id: "4513b7ea-3b91-438f-b7e4-e3e54af9147c", type: "team" },
      { name: "NOC", type: "team" },
    ],
    visibleTo: [{ id: "4513b7ea-3b91-438f-b7e4-e3e54af9147c", type: "team" }],
    actions: ["Restart", "AnExampleAction"],
    tags: ["OverwriteQuietHours", "Critical"],
    details: { key1: "value1", key2: "value2" },
    entity: "An example entity",
    priority: "P1",
  };
}

/**
 * The tools that send the integration's key in a header, each with its documented payloads for an alert that fires and
 * then recovers, the status the receiver answers them with (201 for Grafana, as GitLab answers its Prometheus-style
 * webhooks), the alert it opens and the labels of the links that alert shows back to the tool. PagerDuty, which sends
 * the key as the event's routing key, is tested on its own.
 */
export const headerAuthenticatedTools = [
  {
    format: "grafana",
    fire: grafanaWebhook("firing"),
    resolve: grafanaWebhook("resolved"),
    status: 201,
    alert: { title: "This alert was triggered for zone us-1", severity: "low", monitoringTool: "Grafana" },
    links: ["Alert rule", "Runbook", "Dashboard", "Panel", "Silence"],
  },
  {
    format: "azure",
    fire: azureCommonAlert("Fired"),
    resolve: azureCommonAlert("Resolved"),
    status: 200,
    alert: { title: "WCUS-R2-Gen2", severity: "low", monitoringTool: "Azure Monitor" },
    links: ["Alert in the Azure portal", "Affected resource"],
  },
  {
    format: "cloudwatch",
    fire: cloudWatchAlarmNotification("ALARM"),
    resolve: cloudWatchAlarmNotification("OK"),
    status: 200,
    alert: { title: "HighCPUUtilization", severity: "critical", monitoringTool: "Amazon CloudWatch" },
    links: ["Alarm in the CloudWatch console"],
  },
  {
    format: "sentry",
    fire: sentryIssueAlert(),
    resolve: sentryIssueWebhook("resolved"),
    status: 200,
    alert: { title: "ReferenceError: blooopy is not defined", severity: "medium", monitoringTool: "Sentry" },
    links: ["Event in Sentry"],
  },
  {
    format: "datadog",
    fire: datadogWebhook("Triggered"),
    resolve: datadogWebhook("Recovered"),
    status: 200,
    alert: { title: "CPU load is high on {host:web-1}", severity: "high", monitoringTool: "Datadog" },
    links: ["Monitor Status", "Edit Monitor"],
  },
  {
    format: "google_cloud",
    fire: googleCloudIncident("open"),
    resolve: googleCloudIncident("closed"),
    status: 200,
    alert: { title: "ALERT - No severity", severity: "low", monitoringTool: "Google Cloud Monitoring" },
    links: ["Incident in Cloud Monitoring"],
  },
  {
    format: "new_relic",
    fire: newRelicIssue("ACTIVATED"),
    resolve: newRelicIssue("CLOSED"),
    status: 200,
    alert: { title: "CPU usage > 90% on checkout-web", severity: "high", monitoringTool: "New Relic" },
    links: ["Issue in New Relic"],
  },
  {
    format: "zabbix",
    fire: zabbixEvent("1"),
    resolve: zabbixEvent("0"),
    status: 200,
    alert: { title: "High CPU utilization (over 90% for 5m)", severity: "medium", monitoringTool: "Zabbix" },
    links: ["Event in Zabbix"],
  },
  {
    format: "nagios",
    fire: nagiosNotification("PROBLEM"),
    resolve: nagiosNotification("RECOVERY"),
    status: 200,
    alert: { title: "Disk /var on db-02 is CRITICAL", severity: "critical", monitoringTool: "Nagios" },
    links: [],
  },
  {
    format: "kibana",
    fire: kibanaAction("threshold met"),
    resolve: kibanaAction("recovered"),
    status: 200,
    alert: { title: "Checkout latency above 2 s", severity: "high", monitoringTool: "Elastic" },
    links: ["Alert in Kibana"],
  },
  {
    format: "uptime_kuma",
    fire: uptimeKumaWebhook(0),
    resolve: uptimeKumaWebhook(1),
    status: 200,
    alert: { title: "Storefront is down", severity: "critical", monitoringTool: "Uptime Kuma" },
    links: ["Monitored URL"],
  },
  {
    format: "grafana_oncall",
    fire: grafanaOnCallWebhook("alerting"),
    resolve: grafanaOnCallWebhook("ok"),
    status: 200,
    alert: { title: "The whole system is down", severity: "critical", monitoringTool: "Grafana OnCall" },
    links: ["Details"],
  },
] as const;
