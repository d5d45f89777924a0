import { stringify } from "@foxglove/rosmsg";
import { ros1, ros2galactic, ros2humble, ros2iron, ros2jazzy } from "@foxglove/rosmsg-msgs-common";

type MessageDefinition = (typeof ros2jazzy)[keyof typeof ros2jazzy];
type DefinitionTable = Readonly<Record<string, MessageDefinition>>;

/** Newest first: a distro not listed (or none) uses the newest table. */
const TABLES: readonly (readonly [string, DefinitionTable])[] = [
  ["jazzy", ros2jazzy],
  ["iron", ros2iron],
  ["humble", ros2humble],
  ["galactic", ros2galactic],
];

/** "sensor_msgs/msg/Imu" and "sensor_msgs/Imu" both name "sensor_msgs/Imu" (the tables' key). */
export function shortRos2TypeName(type: string): string {
  const parts = type.split("/");
  return parts.length === 3 && parts[1] === "msg" ? `${parts[0]!}/${parts[2]!}` : type;
}

/** "sensor_msgs/Imu" → "sensor_msgs/msg/Imu" (names with `/msg/` or without a package stay). */
export function fullRos2TypeName(type: string): string {
  const parts = type.split("/");
  return parts.length === 2 ? `${parts[0]!}/msg/${parts[1]!}` : type;
}

function tablesFor(distro: string | undefined): DefinitionTable[] {
  const first = TABLES.findIndex(([name]) => name === distro?.toLowerCase());
  const ordered = first < 0 ? [...TABLES] : [TABLES[first]!, ...TABLES.filter((_, i) => i !== first)];
  return ordered.map(([, table]) => table);
}

/**
 * The full ROS 2 `.msg` text (root definition, then each dependency after a `MSG:` separator,
 * as rosbag2 and MCAP's `ros2msg` schemas store it) of a standard ROS 2 message type, from
 * @foxglove/rosmsg-msgs-common: common_interfaces, rcl_interfaces, builtin_interfaces and the
 * like. Uses the given distro's definitions first (default: the newest). Undefined when the type
 * or one of its dependencies is in none of them (e.g. test_msgs, a user's package).
 */
export function standardRos2Definition(type: string, distro?: string): string | undefined {
  return definitionFrom(tablesFor(distro), shortRos2TypeName(type));
}

/**
 * The full ROS 1 `.msg` text of a standard ROS 1 message type (`sensor_msgs/Imu`), from
 * @foxglove/rosmsg-msgs-common (noetic's common_msgs and the like); undefined when the type or
 * a dependency is not there.
 */
export function standardRos1Definition(type: string): string | undefined {
  return definitionFrom([ros1], type);
}

/** The root and its dependencies from the first table that has them all, as `.msg` text. */
function definitionFrom(tables: readonly DefinitionTable[], short: string): string | undefined {
  for (const table of tables) {
    const root = table[short];
    if (root == undefined) {
      continue;
    }
    const collected = new Map<string, MessageDefinition>();
    const pending: MessageDefinition[] = [root];
    let complete = true;
    while (pending.length > 0) {
      const def = pending.pop()!;
      const name = def.name ?? short;
      if (collected.has(name)) {
        continue;
      }
      collected.set(name, def);
      for (const field of def.definitions) {
        if (field.isComplex === true && !collected.has(field.type)) {
          const dep = table[field.type];
          if (dep == undefined) {
            complete = false;
          } else {
            pending.push(dep);
          }
        }
      }
    }
    if (complete) {
      const [first, ...rest] = collected.values();
      return stringify([{ definitions: first!.definitions }, ...rest]);
    }
  }
  return undefined;
}
