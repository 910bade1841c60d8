/** Project roles and their GitLab access levels (Guest 10 … Owner 50). Pure. */
export const roleLevels = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

/** The roles in the order people choose them. */
export const roleOptions = [
  { accessLevel: roleLevels.guest, name: "Guest" },
  { accessLevel: roleLevels.reporter, name: "Reporter" },
  { accessLevel: roleLevels.developer, name: "Developer" },
  { accessLevel: roleLevels.maintainer, name: "Maintainer" },
  { accessLevel: roleLevels.owner, name: "Owner" },
] as const;

export const accessLevelNames: Record<number, string> = Object.fromEntries(roleOptions.map((role) => [role.accessLevel, role.name]));

export function isAccessLevel(value: number): boolean {
  return value in accessLevelNames;
}
