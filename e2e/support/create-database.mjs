// Creates the (fresh) database named in the given postgres:// URL, so each e2e run starts from an empty database.
import postgres from "postgres";

const target = new URL(process.argv[2]);
const databaseName = decodeURIComponent(target.pathname.slice(1));
if (!/^[a-z0-9_]+$/.test(databaseName)) throw new Error(`unexpected database name ${databaseName}`);
const server = new URL(target);
server.pathname = "/postgres";
const sql = postgres(server.toString(), { max: 1, onnotice: () => {} });
try {
  await sql.unsafe(`drop database if exists "${databaseName}" with (force)`);
  await sql.unsafe(`create database "${databaseName}"`);
} finally {
  await sql.end();
}
