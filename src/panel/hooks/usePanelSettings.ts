import type { PanelExtensionContext, SettingsTreeAction, Topic } from "@foxglove/extension";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { validateFusionConfig } from "../../pipeline";
import { ConfigError, type ConfigIssue } from "../../pipeline/ConfigError";
import { parseConfig } from "../../pipeline/parseConfig";
import { importFuseYaml, type FuseYamlNotice } from "../settings/fuseYamlImport";
import { configFromState, type LockstepConfig } from "../settings/panelConfig";
import { panelIssues, supersededByPanelIssue } from "../settings/panelIssues";
import { PRESETS } from "../settings/presets";
import { applySettingsAction } from "../settings/settingsActions";
import { ACTION, buildSettingsNodes } from "../settings/settingsTree";
import type { ViewChoices } from "../settings/viewChoices";

/**
 * Asks the user for a text file (the browser's file chooser) and hands its name and text to
 * `onText`; nothing happens when the user cancels. Called from a click in the settings sidebar,
 * so the chooser may open.
 */
function chooseTextFile(accept: string, onText: (name: string, text: string) => void): void {
  const input = document.createElement("input");
  input.type = "file";
  input.accept = accept;
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (file != undefined) {
      void file.text().then((text) => {
        onText(file.name, text);
      });
    }
  });
  input.click();
}

/**
 * Validation issues of a config (empty when valid): the panel's own (panelIssues: too few inputs,
 * a unitless duration), the pipeline's (minus those the panel's say better), plus every problem of
 * the fusion section (which the pipeline's validation passes on as is), each with the JSON path
 * that puts it on its settings field. Never throws.
 */
export function configIssues(config: LockstepConfig): ConfigIssue[] {
  const fusion = config.fusion == undefined ? [] : validateFusionConfig(config.fusion, "fusion");
  const panel = panelIssues(config);
  // A unitless duration is already named; the parser would accept it as nanoseconds anyway.
  const notPanels = (issue: ConfigIssue): boolean => !supersededByPanelIssue(issue, config) && !panel.some((p) => p.path === issue.path);
  try {
    parseConfig(config);
    return [...panel, ...fusion];
  } catch (err) {
    if (err instanceof ConfigError) {
      return [...panel, ...err.issues.filter(notPanels), ...fusion];
    }
    return [...panel, { path: "/", message: err instanceof Error ? err.message : String(err) }, ...fusion];
  }
}

/**
 * The panel's config (its saved state) and the app's settings sidebar: every edit arrives as a
 * settings action, is applied to the plain-JSON config, saved with `saveState` and re-rendered
 * into the tree with its validation errors on the fields that hold them.
 */
export function usePanelSettings(
  context: PanelExtensionContext,
  env: { readonly topics: readonly Topic[] | undefined; readonly publishReason: string | undefined },
): {
  config: LockstepConfig;
  issues: readonly ConfigIssue[];
  setPolicy: (policy: Record<string, unknown>) => void;
  setStampSources: (stamps: Readonly<Record<string, string>>) => void;
  setView: (choices: ViewChoices) => void;
} {
  const { topics, publishReason } = env;
  const [config, setConfig] = useState<LockstepConfig>(() => configFromState(context.initialState));
  const issues = useMemo(() => configIssues(config), [config]);
  const [fuseYamlNotice, setFuseYamlNotice] = useState<FuseYamlNotice | undefined>(undefined);
  // The file arrives after the click: the import applies to the config as it is then.
  const configRef = useRef(config);
  configRef.current = config;
  const actionHandler = useCallback(
    (action: SettingsTreeAction) => {
      if (action.action === "perform-node-action" && action.payload.id === ACTION.importFuseYaml) {
        chooseTextFile(".yaml,.yml,text/yaml", (name, text) => {
          const result = importFuseYaml(configRef.current, text, name);
          setConfig(result.config);
          setFuseYamlNotice(result.notice);
        });
        return;
      }
      setConfig((prev) =>
        applySettingsAction(prev, action, {
          presets: PRESETS,
          suggestTopic: (c) => topics?.find((t) => !c.inputs.some((i) => i.topic === t.name))?.name ?? "",
        }),
      );
    },
    [topics],
  );
  useEffect(() => {
    context.saveState(config);
    context.updatePanelSettingsEditor({
      actionHandler,
      nodes: buildSettingsNodes(config, {
        topics,
        publish: { available: publishReason == undefined, reason: publishReason },
        issues,
        presets: Object.keys(PRESETS),
        fuseYamlNotice,
      }),
    });
  }, [context, config, topics, issues, actionHandler, publishReason, fuseYamlNotice]);
  // A whole policy at once (the Diagnosis view's "Apply"): saved and shown in the sidebar like an edit.
  const setPolicy = useCallback((policy: Record<string, unknown>) => {
    setConfig((prev) => ({ ...prev, policy: policy as LockstepConfig["policy"] }));
  }, []);
  // Input stamp sources by topic (the Diagnosis view's "Apply" of a cause's stamp fix), as edits.
  const setStampSources = useCallback((stamps: Readonly<Record<string, string>>) => {
    setConfig((prev) => ({ ...prev, inputs: prev.inputs.map((input) => (input.topic in stamps ? { ...input, stamp: stamps[input.topic] } : input)) }));
  }, []);
  // A view choice (tab, compared policy, raw placement): saved with the layout, never re-analyzed.
  const setView = useCallback((choices: ViewChoices) => {
    setConfig((prev) => ({ ...prev, view: { ...prev.view, ...choices } }));
  }, []);
  return { config, issues, setPolicy, setStampSources, setView };
}
