// `@roost/client/sqlite`: the Node-only entry. Kept apart from the package root so that browser
// bundles never see better-sqlite3.
export { SqliteEventStore } from './store/sqlite-store'
