/**
 * `load` made to run once per database handle: what it answers is kept and handed to every later caller (a value that
 * never changes once made, such as an internal user or the signing key), while a failure is forgotten, so the next
 * caller tries again.
 */
export function oncePerDatabase<Db extends object, T>(load: (db: Db) => Promise<T>): (db: Db) => Promise<T> {
  const loaded = new WeakMap<Db, Promise<T>>();
  return (db) => {
    let value = loaded.get(db);
    if (!value) {
      value = load(db);
      value.catch(() => loaded.delete(db));
      loaded.set(db, value);
    }
    return value;
  };
}
