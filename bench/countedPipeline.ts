import { Fnv64 } from "./Fnv64";
import { Pipeline, type PipelineConfig, type PipelineTuple } from "../src/pipeline";

/**
 * A Pipeline that counts its tuples and drops and folds every tuple into a hash with `fold`, so
 * that benchmark runs can be compared (equal counts and hash = the same output). The counts and
 * the hash are up to date after each `pipeline.push`.
 */
export class CountedPipeline {
  public readonly pipeline: Pipeline;
  public readonly hash = new Fnv64();
  #tuples = 0;
  #drops = 0;

  public constructor(config: PipelineConfig, fold: (hash: Fnv64, tuple: PipelineTuple, pipeline: Pipeline) => void) {
    const pipeline = new Pipeline(config);
    this.pipeline = pipeline;
    pipeline.onTuple((t) => {
      this.#tuples++;
      fold(this.hash, t, pipeline);
    });
    pipeline.onDrop(() => {
      this.#drops++;
    });
  }

  /** Tuples emitted so far. */
  public get tuples(): number {
    return this.#tuples;
  }

  /** Messages dropped so far. */
  public get drops(): number {
    return this.#drops;
  }
}
