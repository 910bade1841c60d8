/** Project roles and their GitLab access levels (CONTRACT §2), in the order people choose them. Pure. */
export const roleOptions = [
  { accessLevel: 10, name: "Guest" },
  { accessLevel: 20, name: "Reporter" },
  { accessLevel: 30, name: "Developer" },
  { accessLevel: 40, name: "Maintainer" },
  { accessLevel: 50, name: "Owner" },
] as const;

export const accessLevelNames: Record<number, string> = Object.fromEntries(roleOptions.map((role) => [role.accessLevel, role.name]));

export function isAccessLevel(value: number): boolean {
  return value in accessLevelNames;
}
