// Bulk data for the scale matrix, written with set-based SQL straight into the database, on PostgreSQL and on the
// embedded database alike (the statements run through whichever `query(text)` they are given, with the server
// stopped or idle). Everything is derived from one layout so that every row agrees with the others and with what the
// service maintains: ids are explicit and the identity sequences are moved past them, per-project numbers (iids) are
// dense and `internal_ids` holds the last one, each user has a namespace of the same path, comment events carry their
// note's snapshot, each event's audience is the one the database would give it, and the event counts, the issue counts
// of projects and labels and `projects.last_activity_at` are computed from the rows written.
//
// The big public project's history is a sequence of blocks of 100 events, in time order (ids grow with time, as
// they do when the service writes them): per block 6 issues opened, 2 closed (each an issue opened 100 blocks
// earlier), 1 reopen every 4 blocks, 25 comments (1 in 20 an internal note, 1 in 50 on the one big issue), a member
// joining every other block, a milestone created in each of the first blocks, and 64 pushes; 5 % of the issues are
// confidential. Authors are the "prolific" developer (20 %), the owner and the reporter viewers (8 % each), root
// (2 %) and Reporter-or-above members. Other projects are one per bulk user, 20 % public and 10 % internal, with the
// rest of the issues spread over them.
//
// Foreign keys and triggers are not fired during the load (`session_replication_role = replica`): every value they
// would check or maintain is written here, and recreating the unique indexes afterwards checks the data. Secondary
// indexes are dropped before the load and recreated from their own definitions after it.

/** The sizes of everything, from the big project's event count (the rest scales with it). */
export function scaleLayout(events) {
  const factor = events / 10_000_000;
  const blocks = Math.ceil(events / 100);
  const inLastBlock = events - (blocks - 1) * 100;
  /** How many events of the big project fall on positions `from`..`from + width - 1` of their block. */
  const perBlock = (from, width) => (blocks - 1) * width + Math.min(Math.max(inLastBlock - from, 0), width);
  const bigIssues = perBlock(0, 6);
  const notes = perBlock(9, 25);
  // Members join on even blocks; at least ten, so that every tenth of them holds each role.
  const members = Math.max(10, Math.ceil(blocks / 2));
  const milestones = Math.max(5, Math.round(500 * factor));
  return {
    events,
    blocks,
    bigIssues,
    notes,
    members,
    milestones: Math.min(milestones, blocks),
    labels: Math.max(20, Math.round(2_000 * factor)),
    alerts: Math.max(50, Math.round(50_000 * factor)),
    // Users and projects other than the viewers' (one project per bulk user, in their namespace).
    users: Math.max(members + 100, Math.round(100_000 * factor)),
    projects: Math.max(100, Math.round(100_000 * factor)),
    // Top-level groups, each with one subgroup; half of the other projects live in them (a quarter at each level).
    groups: Math.max(10, Math.round(5_000 * factor)),
    otherIssues: Math.max(200, Math.round(1_000_000 * factor) - bigIssues),
    // Each signed-in viewer is a member of about this many other projects (the external user of ten private ones).
    viewerMemberships: Math.max(10, Math.round(1_000 * Math.min(1, factor * 10))),
    // History spans the last 720 days, inside the two-year retention.
    spanSeconds: 720 * 86_400,
  };
}

const tablesLoaded = [
  "users",
  "namespaces",
  "group_members",
  "projects",
  "project_members",
  "milestones",
  "labels",
  "issues",
  "issue_labels",
  "issue_assignees",
  "notes",
  "alerts",
  "alert_notes",
  "events",
];

// Triggers this seed knows of. The token-check ones only tell token caches about changes, and the seed changes no
// token or user that a running process may have cached; what the others maintain (each event's audience, the event
// counts, the issue counts of projects and labels, the comment counts of issues) the seed writes itself. A trigger
// not listed here may maintain something the seed must write too.
const knownTriggers = new Set([
  "users_token_checks_update",
  "users_token_checks_delete",
  "oauth_applications_token_checks",
  "oauth_grants_token_checks",
  "oauth_access_tokens_token_checks",
  "personal_access_tokens_token_checks",
  "events_audience",
  "issues_events_audience",
  "events_count_insert",
  "events_count_delete",
  "events_count_update",
  "issues_count_in_projects_insert",
  "issues_count_in_projects_update",
  "issues_count_in_projects_delete",
  "issue_labels_count_in_labels_insert",
  "issue_labels_count_in_labels_delete",
  "issues_count_in_labels_update",
  "issue_deleted_from_labels",
  "notes_count_comment_insert",
  "notes_count_comment_update",
  "notes_count_comment_delete",
  // What these keep (each namespace's full path, full name and traversal ids) the seed writes itself.
  "namespaces_place",
  "namespaces_move_children",
]);

/**
 * Seeds the scale data. `query(text)` runs one statement and resolves to its rows; `context` names what the API
 * created before: `{ projectId, ownerId, reporterId, guestId, externalId, prolificId, rootId, integrationId,
 * passwordHashOf }` (the username whose password hash bulk users share). `parallelQuery`, when given, is a second
 * connection: index builds are shared between the two. Returns the ids the matrix needs and the time each step took.
 */
export async function seedScale(query, layout, context, { parallelQuery, log = () => {} } = {}) {
  const steps = [];
  const step = async (name, work) => {
    const startedAt = performance.now();
    const result = await work();
    const seconds = (performance.now() - startedAt) / 1000;
    steps.push({ name, seconds });
    log(`    ${name}: ${seconds.toFixed(1)} s`);
    return result;
  };
  const one = async (text) => (await query(text))[0];

  const triggers = await query(
    `select tgname from pg_trigger where not tgisinternal and tgrelid in (${tablesLoaded.map((table) => `'${table}'::regclass`).join(", ")})`,
  );
  const unknown = triggers.map((row) => row.tgname).filter((name) => !knownTriggers.has(name));
  if (unknown.length) log(`    note: triggers the seed does not fire and does not know: ${unknown.join(", ")}`);

  const connections = parallelQuery ? [query, parallelQuery] : [query];
  for (const run of connections) {
    for (const setting of ["session_replication_role = replica", "synchronous_commit = off", "maintenance_work_mem = '512MB'", "work_mem = '256MB'"]) {
      await run(`set ${setting}`);
    }
  }

  // Secondary indexes (not those behind a primary key or constraint) go for the load and come back after it.
  const indexes = await query(`
    select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition, c.relname as table_name
    from pg_index i join pg_class c on c.oid = i.indrelid
    where c.relname in (${tablesLoaded.map((table) => `'${table}'`).join(", ")})
      and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`);
  await step(`drop ${indexes.length} secondary indexes`, async () => {
    for (const index of indexes) await query(`drop index ${index.name}`);
  });

  const base = await one(`select
      (select coalesce(max(id), 0) from users) as users,
      (select coalesce(max(id), 0) from namespaces) as namespaces,
      (select coalesce(max(id), 0) from projects) as projects,
      (select coalesce(max(id), 0) from issues) as issues,
      (select coalesce(max(id), 0) from notes) as notes,
      (select coalesce(max(id), 0) from milestones) as milestones,
      (select coalesce(max(id), 0) from labels) as labels,
      (select coalesce(max(id), 0) from alerts) as alerts,
      (select coalesce(max(id), 0) from events) as events`);
  for (const key of Object.keys(base)) base[key] = Number(base[key]);
  const startIso = new Date(Date.now() - layout.spanSeconds * 1000 - 3_600_000).toISOString();
  const L = layout;
  const { projectId: big } = context;
  const secondsPerEvent = L.spanSeconds / L.events;
  /** The time of the big project's event at position m (0-based). */
  const at = (m) => `('${startIso}'::timestamptz + make_interval(secs => (${m}) * ${secondsPerEvent}))`;
  const hash = (expression, modulo) => `(abs(hashint8((${expression})::bigint)) % ${modulo})`;
  /** The user id of the big project's member number `mi` (1-based): bulk user `mi`. */
  const memberUser = (mi) => `(${base.users} + (${mi}))`;
  /** A Reporter-or-above member, picked by `seed`: members whose number ends in 4 to 9. */
  const activeMember = (seed) => memberUser(`${hash(seed, Math.floor(L.members / 10))} * 10 + 4 + ${hash(`(${seed}) + 1`, 6)}`);
  /** Who wrote the big project's event at position m. */
  const author = (m) => `(case
      when ${hash(m, 100)} < 20 then ${context.prolificId}
      when ${hash(m, 100)} < 28 then ${context.ownerId}
      when ${hash(m, 100)} < 36 then ${context.reporterId}
      when ${hash(m, 100)} < 38 then ${context.rootId}
      else ${activeMember(`(${m}) * 3 + 1`)} end)`;
  const issueTitle = (iid) => `('Checkout fails for some customers when the cart holds item ' || (${iid}))`;
  /** The big project's issue iid a comment (1-based number j, in block b) is about. */
  const noteIssueIid = (j, b) => `(case when (${j}) % 50 = 0 then 1 else 1 + ${hash(`(${j}) * 7`, `((${b}) * 6 + 6)`)} end)`;
  const pad = (n) => `lpad((${n})::text, 6, '0')`;
  /**
   * The signed-in viewers' roles in the groups and projects that are not the big project's, and which of every ten they
   * belong to: the owner as Developer, the reporter as Reporter, the guest as Guest, the external user as Reporter of
   * the first few only.
   */
  const viewerRoles = [
    { userId: context.ownerId, level: 30, offset: 1, external: false },
    { userId: context.reporterId, level: 20, offset: 4, external: false },
    { userId: context.guestId, level: 10, offset: 7, external: false },
    { userId: context.externalId, level: 20, offset: 3, external: true },
  ];

  await step(`${L.users} users and their namespaces`, async () => {
    await query(`insert into users (id, username, email, name, password_hash, confirmed_at, created_at, updated_at)
      select ${base.users} + u, 'user-' || ${pad("u")}, 'user-' || ${pad("u")} || '@bench.example', 'User ' || u,
        (select password_hash from users where username = '${context.passwordHashOf}'), now(),
        ${at("(u * 1.0 / " + L.users + ") * " + L.events)}, now()
      from generate_series(1, ${L.users}) u`);
    await query(`insert into namespaces (id, path, name, owner_id, full_path, full_name, traversal_ids, created_at)
      select ${base.namespaces} + u, 'user-' || ${pad("u")}, 'User ' || u, ${base.users} + u, 'user-' || ${pad("u")}, 'User ' || u,
        array[${base.namespaces} + u], now()
      from generate_series(1, ${L.users}) u`);
  });

  // Group g (1-based) is namespace groupBase + g and its subgroup groupBase + groups + g; what the namespaces_place
  // trigger would set (full path, full name, traversal ids) is written here.
  const groupBase = base.namespaces + L.users;
  const topGroup = (g) => `(${groupBase} + (${g}))`;
  const subgroup = (g) => `(${groupBase} + ${L.groups} + (${g}))`;
  await step(`${L.groups} groups, ${L.groups} subgroups and their members`, async () => {
    await query(`insert into namespaces (id, kind, path, name, full_path, full_name, traversal_ids, description, visibility, created_at)
      select ${topGroup("g")}, 'group', 'group-' || ${pad("g")}, 'Group ' || g, 'group-' || ${pad("g")}, 'Group ' || g, array[${topGroup("g")}],
        'Team number ' || g, case when g % 10 in (0, 1) then 'public' when g % 10 = 2 then 'internal' else 'private' end, now()
      from generate_series(1, ${L.groups}) g`);
    await query(`insert into namespaces (id, kind, parent_id, path, name, full_path, full_name, traversal_ids, visibility, created_at)
      select ${subgroup("g")}, 'group', ${topGroup("g")}, 'services', 'Services', 'group-' || ${pad("g")} || '/services',
        'Group ' || g || ' / Services', array[${topGroup("g")}, ${subgroup("g")}],
        case when g % 10 in (0, 1) then 'public' when g % 10 = 2 then 'internal' else 'private' end, now()
      from generate_series(1, ${L.groups}) g`);
    // Each group is owned by one bulk user and has four more members of each other role; the signed-in viewers are
    // members of one group in ten each (their roles reach the subgroup and every project below), the external user of one.
    await query(`insert into group_members (group_id, user_id, access_level, created_by_id, created_at)
      select ${topGroup("g")}, ${base.users} + ((g - 1) % ${L.users}) + 1, 50, ${base.users} + ((g - 1) % ${L.users}) + 1, now()
      from generate_series(1, ${L.groups}) g
      union all
      select ${topGroup("g")}, ${base.users} + ((g * 17 + r) % ${L.users}) + 1, (array[10, 20, 30, 40])[1 + r % 4],
        ${base.users} + ((g - 1) % ${L.users}) + 1, now()
      from generate_series(1, ${L.groups}) g, generate_series(1, 16) r where (g * 17 + r) % ${L.users} <> (g - 1) % ${L.users}`);
    for (const { userId, level, offset, external } of viewerRoles) {
      await query(`insert into group_members (group_id, user_id, access_level, created_by_id, created_at)
        select ${topGroup("g")}, ${userId}, ${level}, ${base.users} + ((g - 1) % ${L.users}) + 1, now()
        from generate_series(1, ${L.groups}) g where g % 10 = ${offset} and g < ${external ? 10 : L.groups}`);
    }
  });

  await step(`${L.projects} other projects, their owners and ${L.otherIssues} issues`, async () => {
    // Project p was created by bulk user ((p - 1) % users) + 1, in that user's namespace when p is odd, else in group
    // ((p / 2 - 1) % groups) + 1 (p % 4 = 2) or its subgroup (p % 4 = 0); 20 % are public, 10 % internal.
    await query(`insert into projects (id, namespace_id, creator_id, name, path, description, visibility, created_at, updated_at, last_activity_at)
      select ${base.projects} + p,
        case when p % 2 = 1 then ${base.namespaces} + ((p - 1) % ${L.users}) + 1
          when p % 4 = 2 then ${topGroup(`((p / 2 - 1) % ${L.groups}) + 1`)} else ${subgroup(`((p / 2 - 1) % ${L.groups}) + 1`)} end,
        ${base.users} + ((p - 1) % ${L.users}) + 1,
        'Project ' || p, 'project-' || p, 'Service number ' || p || ' of the platform',
        case when p % 10 in (0, 1) then 'public' when p % 10 = 2 then 'internal' else 'private' end,
        ${at(`p * ${L.events / L.projects / 2}`)}, now(), ${at(`p * ${L.events / L.projects / 2}`)}
      from generate_series(1, ${L.projects}) p`);
    await query(`insert into project_members (project_id, user_id, access_level, created_by_id, created_at)
      select ${base.projects} + p, ${base.users} + ((p - 1) % ${L.users}) + 1, 50, ${base.users} + ((p - 1) % ${L.users}) + 1, now()
      from generate_series(1, ${L.projects}) p`);
    // Issue q lives in project ((q - 1) % projects) + 1 with iid ((q - 1) / projects) + 1; the big project's come first.
    await query(`insert into issues (id, project_id, iid, title, description, state, confidential, author_id, closed_at, created_at, updated_at)
      select ${base.issues + L.bigIssues} + q, ${base.projects} + ((q - 1) % ${L.projects}) + 1, (q - 1) / ${L.projects} + 1,
        'Upgrade the runtime of service ' || q, 'The runtime reaches its end of life; see the upgrade guide.',
        case when q % 3 = 0 then 'closed' else 'opened' end, q % 20 = 3, ${base.users} + ((q - 1) % ${L.projects} % ${L.users}) + 1,
        case when q % 3 = 0 then now() - interval '1 day' end, ${at(`q * ${L.events / L.otherIssues / 2}`)}, now()
      from generate_series(1, ${L.otherIssues}) q`);
    // The signed-in viewers' memberships elsewhere: owner (Developer), reporter (Reporter), guest (Guest) in about a
    // thousand projects each, the external user in ten private ones.
    const stride = Math.max(10, Math.floor(L.projects / L.viewerMemberships));
    for (const { userId, level, offset, external } of viewerRoles) {
      await query(`insert into project_members (project_id, user_id, access_level, created_by_id, created_at)
        select ${base.projects} + p, ${userId}, ${level}, ${base.users} + ((p - 1) % ${L.users}) + 1, now()
        from generate_series(1, ${L.projects}) p where p % ${stride} = ${offset} and p / ${stride} < ${external ? 10 : L.viewerMemberships}`);
    }
  });

  await step(`big project: ${L.members} members, ${L.milestones} milestones, ${L.labels} labels`, async () => {
    // Member mi is bulk user mi; by the last digit of mi: 0–3 Guest, 4–6 Reporter, 7–8 Developer, 9 Maintainer.
    await query(`insert into project_members (project_id, user_id, access_level, created_by_id, created_at)
      select ${big}, ${memberUser("mi")}, case when mi % 10 < 4 then 10 when mi % 10 < 7 then 20 when mi % 10 < 9 then 30 else 40 end,
        ${context.ownerId}, ${at("(mi - 1) * 200 + 34")}
      from generate_series(1, ${L.members}) mi`);
    await query(`insert into milestones (id, project_id, iid, title, description, state, due_date, start_date, created_at, updated_at)
      select ${base.milestones} + s, ${big}, s, 'Release ' || s || '.0', 'What ships in release ' || s,
        case when s < ${L.milestones} * 0.8 then 'closed' else 'active' end,
        (${at("(s - 1) * 100 + 35")} + interval '30 days')::date, (${at("(s - 1) * 100 + 35")})::date, ${at("(s - 1) * 100 + 35")}, now()
      from generate_series(1, ${L.milestones}) s`);
    await query(`insert into labels (id, project_id, title, color, description, created_at, updated_at)
      select ${base.labels} + l, ${big}, 'area::component-' || l, '#' || lpad(to_hex((l::bigint * 2654435) % 16777216), 6, '0'), 'Work on component ' || l, now(), now()
      from generate_series(1, ${L.labels}) l`);
  });

  await step(`big project: ${L.bigIssues} issues with labels and assignees`, async () => {
    // Issue i is opened at position ((i - 1) / 6) * 100 + (i - 1) % 6; those with (i - 1) % 6 in (0, 3) are closed 100
    // blocks later (positions 6 and 7), and the first kind reopened 150 blocks later when that block is a multiple of 4.
    const opened = "(((i - 1) / 6) * 100 + (i - 1) % 6)";
    const closedAt = "((((i - 1) / 6) + 100) * 100 + case when (i - 1) % 6 = 0 then 6 else 7 end)";
    const closes = `((i - 1) % 6 in (0, 3) and ${closedAt} < ${L.events})`;
    const reopenedAt = "((((i - 1) / 6) + 150) * 100 + 8)";
    const reopens = `((i - 1) % 6 = 0 and (((i - 1) / 6) + 150) % 4 = 0 and ${reopenedAt} < ${L.events})`;
    await query(`insert into issues (id, project_id, iid, title, description, state, confidential, author_id, milestone_id, closed_at, closed_by_id, created_at, updated_at)
      select ${base.issues} + i, ${big}, i, ${issueTitle("i")},
        'Steps to reproduce: add item ' || i || ' to the cart, pay with a saved card. Expected: the order is placed. Actual: HTTP 502.',
        case when ${closes} and not ${reopens} then 'closed' else 'opened' end, i % 20 = 3, ${author(opened)},
        case when i % 4 = 0 then ${base.milestones} + 1 + (i / 4) % ${L.milestones} end,
        case when ${closes} and not ${reopens} then ${at(closedAt)} end,
        case when ${closes} and not ${reopens} then ${author(closedAt)} end,
        ${at(opened)}, case when ${reopens} then ${at(reopenedAt)} when ${closes} then ${at(closedAt)} else ${at(opened)} end
      from generate_series(1, ${L.bigIssues}) i`);
    await query(`insert into issue_labels (issue_id, label_id)
      select ${base.issues} + i, ${base.labels} + 1 + i % ${L.labels} from generate_series(1, ${L.bigIssues}) i where i % 3 <> 0
      union all
      select ${base.issues} + i, ${base.labels} + 1 + (i * 7 + 3) % ${L.labels} from generate_series(1, ${L.bigIssues}) i
      where i % 5 = 0 and i % 3 <> 0 and (i * 7 + 3) % ${L.labels} <> i % ${L.labels}`);
    await query(`insert into issue_assignees (issue_id, user_id)
      select ${base.issues} + i, ${activeMember("i * 5")} from generate_series(1, ${L.bigIssues}) i where i % 2 = 0`);
  });

  await step(`big project: ${L.notes} comments`, async () => {
    // Comment j is at position ((j - 1) / 25) * 100 + 9 + (j - 1) % 25.
    const position = "(((j - 1) / 25) * 100 + 9 + (j - 1) % 25)";
    await query(`insert into notes (id, project_id, issue_id, author_id, body, system, internal, created_at, updated_at)
      select ${base.notes} + j, ${big}, ${base.issues} + ${noteIssueIid("j", "(j - 1) / 25")}, ${author(position)},
        'Comment ' || j || ': this reproduces on the staging cluster too; the gateway logs show the upstream timing out after 3 s.',
        false, j % 20 = 7, ${at(position)}, ${at(position)}
      from generate_series(1, ${L.notes}) j`);
  });

  await step(`big project: ${L.alerts} alerts`, async () => {
    await query(`insert into alerts (id, project_id, integration_id, iid, title, description, severity, status, started_at, ended_at,
        monitoring_tool, service, hosts, environment, fingerprint, event_count, payload, payload_format, created_at, updated_at)
      select ${base.alerts} + a, ${big}, ${context.integrationId}, a, 'High error rate on checkout-' || (a % 50),
        'The 5xx rate exceeded 5% for 10 minutes.', (array['critical','high','medium','low','info','unknown'])[1 + a % 6],
        case when a % 10 < 6 then 'resolved' when a % 10 < 8 then 'acknowledged' when a % 10 = 8 then 'triggered' else 'ignored' end,
        ${at(`a * ${L.events / L.alerts}`)}, case when a % 10 < 6 then ${at(`a * ${L.events / L.alerts}`)} + interval '20 minutes' end,
        'Prometheus', 'checkout-' || (a % 50), array['checkout-' || (a % 7) || '.internal'], 'production', md5('alert-' || a), 1 + a % 7,
        jsonb_build_object('title', 'High error rate on checkout-' || (a % 50), 'severity', 'high', 'fingerprint', md5('alert-' || a),
          'labels', jsonb_build_object('team', 'payments', 'region', 'eu-west-1')),
        'generic', ${at(`a * ${L.events / L.alerts}`)}, now()
      from generate_series(1, ${L.alerts}) a`);
    await query(`insert into alert_notes (alert_id, body, system, created_at)
      select ${base.alerts} + a, 'logged an alert from **Prometheus**', true, ${at(`a * ${L.events / L.alerts}`)}
      from generate_series(1, ${L.alerts}) a`);
  });

  await step(`${L.events} events in the big project`, async () => {
    // One statement per slice of positions; with a second connection the slices are shared between the two.
    const slices = [];
    const sliceSize = 2_000_000;
    for (let from = 0; from < L.events; from += sliceSize) slices.push([from, Math.min(L.events, from + sliceSize) - 1]);
    const insertSlice = (run, [from, to]) =>
      run(`insert into events (id, project_id, author_id, action, target_type, target_id, target_iid, target_title, issue_id, internal, audience, data, created_at)
      select ${base.events} + 1 + m, ${big},
        case when kind = 'joined' then ${memberUser("b / 2 + 1")} when kind = 'commented' then n.author_id else ${author("m")} end,
        case when kind in ('opened', 'milestone') then 'created' else kind end,
        case when kind in ('opened', 'closed', 'reopened') then 'Issue' when kind = 'commented' then 'Note' when kind = 'milestone' then 'Milestone' end,
        case when kind in ('opened', 'closed', 'reopened') then ${base.issues} + issue_iid when kind = 'commented' then n.id when kind = 'milestone' then ${base.milestones} + b + 1 end,
        case when kind in ('opened', 'closed', 'reopened') then issue_iid when kind = 'commented' then n.id when kind = 'milestone' then b + 1 end,
        case when kind in ('opened', 'closed', 'reopened') then ${issueTitle("issue_iid")} when kind = 'commented' then ${issueTitle("ni.iid")}
          when kind = 'milestone' then 'Release ' || (b + 1) || '.0' end,
        case when kind in ('opened', 'closed', 'reopened') then ${base.issues} + issue_iid when kind = 'commented' then n.issue_id end,
        kind = 'commented' and n.internal,
        -- The audience the events_audience trigger would set: internal notes, then confidential issues, then pushes.
        case
          when kind = 'commented' and n.internal then 3
          when kind in ('opened', 'closed', 'reopened') and issue_iid % 20 = 3 then 2
          when kind = 'commented' and ni.confidential then 2
          when kind = 'pushed' then 1
          else 0
        end,
        case
          when kind = 'pushed' then jsonb_build_object('push_data', jsonb_build_object(
            'commit_count', 1 + ${hash("m", 5)}, 'action', 'pushed', 'ref_type', 'branch',
            'commit_from', md5(m::text) || substr(md5((m + 1)::text), 1, 8), 'commit_to', md5((m + 1)::text) || substr(md5(m::text), 1, 8),
            'ref', case when ${hash("m + 3", 4)} = 0 then 'main' else 'feature/cart-' || (b % 997) end,
            'commit_title', 'Handle the gateway timeout in the cart service (' || m || ')', 'ref_count', null))
          when kind = 'commented' then jsonb_build_object('note', jsonb_build_object(
            'id', n.id, 'body', n.body, 'system', false, 'internal', n.internal, 'noteable_id', n.issue_id, 'noteable_iid', ni.iid,
            'created_at', to_char(n.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'updated_at', to_char(n.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
        end,
        ${at("m")}
      from (
        select m, b, k,
          case
            when k < 6 then 'opened'
            when k in (6, 7) and b >= 100 then 'closed'
            when k = 8 and b >= 150 and b % 4 = 0 then 'reopened'
            when k between 9 and 33 then 'commented'
            when k = 34 and b % 2 = 0 then 'joined'
            when k = 35 and b < ${L.milestones} then 'milestone'
            else 'pushed'
          end as kind,
          case when k < 6 then b * 6 + k + 1 when k = 6 then (b - 100) * 6 + 1 when k = 7 then (b - 100) * 6 + 4 when k = 8 then (b - 150) * 6 + 1 end as issue_iid,
          case when k between 9 and 33 then b * 25 + (k - 9) + 1 end as j
        from (select m, m / 100 as b, m % 100 as k from generate_series(${from}, ${to}) m) positions
      ) e
      left join notes n on n.id = ${base.notes} + e.j
      left join issues ni on ni.id = n.issue_id`);
    await Promise.all(connections.map(async (run, index) => {
      for (let slice = index; slice < slices.length; slice += connections.length) await insertSlice(run, slices[slice]);
    }));
  });

  await step("other projects' events (created, issues opened, viewers joined)", async () => {
    await query(`insert into events (id, project_id, author_id, action, created_at)
      select ${base.events + L.events} + row_number() over (order by id), id, creator_id, 'created', created_at
      from projects where id > ${base.projects}`);
    await query(`insert into events (id, project_id, author_id, action, target_type, target_id, target_iid, target_title, issue_id, audience, created_at)
      select ${base.events + L.events + L.projects} + row_number() over (order by i.id), i.project_id, i.author_id, 'created', 'Issue', i.id, i.iid, i.title, i.id,
        case when i.confidential then 2 else 0 end, i.created_at
      from issues i where i.id > ${base.issues + L.bigIssues}`);
    await query(`insert into events (id, project_id, author_id, action, created_at)
      select ${base.events + L.events + L.projects + L.otherIssues} + row_number() over (order by m.project_id, m.user_id),
        m.project_id, m.user_id, 'joined', m.created_at
      from project_members m where m.project_id > ${base.projects} and m.user_id in (${context.ownerId}, ${context.reporterId}, ${context.guestId}, ${context.externalId})`);
  });

  await step("maintained values: sequences, iids, event and issue counts, last activity", async () => {
    for (const table of ["users", "namespaces", "projects", "issues", "notes", "milestones", "labels", "alerts", "alert_notes", "events"]) {
      await query(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
    }
    await query(`insert into internal_ids (project_id, usage, last_value)
      select project_id, 'issues', max(iid) from issues group by project_id
      union all select project_id, 'milestones', max(iid) from milestones group by project_id
      union all select project_id, 'alerts', max(iid) from alerts group by project_id
      on conflict (project_id, usage) do update set last_value = excluded.last_value`);
    // What the events_count_* triggers keep: events by project, and by author in each project, per audience, action
    // and target type.
    await query(`delete from project_event_counts`);
    await query(`insert into project_event_counts (project_id, audience, action, target_type, event_count)
      select project_id, audience, action, coalesce(target_type, ''), count(*) from events where project_id is not null group by 1, 2, 3, 4`);
    await query(`delete from author_event_counts`);
    await query(`insert into author_event_counts (author_id, project_id, audience, action, target_type, event_count)
      select author_id, project_id, audience, action, coalesce(target_type, ''), count(*) from events where project_id is not null group by 1, 2, 3, 4, 5`);
    // What the notes_count_comment_* triggers keep: each issue's comments, for everyone and internal.
    await query(`delete from issue_comment_counts`);
    await query(`insert into issue_comment_counts (issue_id, comments, internal_comments)
      select issue_id, count(*) filter (where not internal), count(*) filter (where internal) from notes where not system group by issue_id`);
    // What the issues_count_* and issue_labels_count_* triggers keep: open issues per project, issues per label.
    await query(`update projects set open_issues_count = counted.opened, open_nonconfidential_issues_count = counted.opened_nonconfidential
      from (select project_id, count(*) filter (where state = 'opened') as opened,
              count(*) filter (where state = 'opened' and not confidential) as opened_nonconfidential
            from issues group by project_id) counted
      where projects.id = counted.project_id`);
    await query(`update labels set open_issues_count = counted.opened, closed_issues_count = counted.closed,
        open_nonconfidential_issues_count = counted.opened_nonconfidential, closed_nonconfidential_issues_count = counted.closed_nonconfidential
      from (select link.label_id, count(*) filter (where issue.state = 'opened') as opened, count(*) filter (where issue.state = 'closed') as closed,
              count(*) filter (where issue.state = 'opened' and not issue.confidential) as opened_nonconfidential,
              count(*) filter (where issue.state = 'closed' and not issue.confidential) as closed_nonconfidential
            from issue_labels link join issues issue on issue.id = link.issue_id group by link.label_id) counted
      where labels.id = counted.label_id`);
    await query(`update projects set last_activity_at = latest.at
      from (select project_id, max(created_at) as at from events where project_id is not null group by project_id) latest
      where latest.project_id = projects.id and latest.at > projects.last_activity_at`);
    // The big project was created before its history (through the API, a moment ago).
    await query(`update projects set created_at = '${startIso}'::timestamptz - interval '1 hour' where id = ${big}`);
    await query(`update events set created_at = '${startIso}'::timestamptz - interval '1 hour' where project_id = ${big} and action = 'created' and target_type is null`);
  });

  for (const run of connections) await run("reset session_replication_role");

  await step(`recreate ${indexes.length} indexes`, async () => {
    // Largest tables first, so the two connections finish together.
    const pending = [...indexes].sort((a, b) => tablesLoaded.indexOf(b.table_name) - tablesLoaded.indexOf(a.table_name));
    await Promise.all(connections.map(async (run) => {
      for (let index = pending.shift(); index; index = pending.shift()) await run(index.definition);
    }));
  });

  await step("vacuum and analyze", async () => {
    // Vacuum sets the visibility map, so index-only scans need not visit the heap, as on a database that has lived.
    for (const table of tablesLoaded) await query(`vacuum (analyze) ${table}`);
    await query("analyze");
  });

  const ids = await one(`select
      (select id from events where project_id = ${big} order by created_at, id offset ${Math.floor(L.events / 2)} limit 1) as "midEventId",
      (select id from events where author_id = ${context.prolificId} order by created_at, id offset ${Math.floor(L.events / 10)} limit 1) as "midProlificEventId",
      (select id from users order by id offset ${Math.floor(L.users / 2)} limit 1) as "midUserId",
      (select id from projects order by id offset ${Math.floor(L.projects / 2)} limit 1) as "midProjectId",
      ${topGroup(1)} as "firstGroupId",
      (select id from namespaces where kind = 'group' order by id offset ${L.groups} limit 1) as "midGroupId",
      (select count(*) from events) as "totalEvents"`);
  return { ids: Object.fromEntries(Object.entries(ids).map(([key, id]) => [key, Number(id)])), steps, base };
}
