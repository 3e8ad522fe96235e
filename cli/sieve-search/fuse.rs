//! `sieve-search fuse`: two or more runs fused into one run per method
//! (`sieve_searcher::fusion`), each checked before any file is written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sieve_searcher::fusion::{self, FuseParams, Fused, Method};

use crate::args::FuseArgs;
use crate::output::{refuse_inputs, sink};

/// `sieve-search fuse`.
pub fn cmd_fuse(a: FuseArgs) -> Result<()> {
    let plans = plan(&a)?;
    let inputs: Vec<&Path> = a.runs.iter().map(|p| p.as_path()).collect();
    for (_, _, output) in &plans {
        refuse_inputs(output.as_deref(), &inputs)?;
    }
    let runs = a
        .runs
        .iter()
        .map(|p| fusion::read_fusion_run(p, a.depth))
        .collect::<Result<Vec<_>, _>>()?;
    report_missing(&runs);
    let mut fused: Vec<Fused> = Vec::with_capacity(plans.len());
    for (params, _, _) in &plans {
        let f = fusion::fuse(&runs, params)?;
        if !f.uncertain_ties.is_empty() {
            eprintln!(
                "warning: fuse {}: in {} topic(s) (first {:?}) Java's HashMap would hold a bucket as a tree; tied scores there may be ordered unlike Anserini",
                params.method.name(),
                f.uncertain_ties.len(),
                f.uncertain_ties[0]
            );
        }
        fused.push(f);
    }
    if let Some(dir) = &a.output_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    for ((_, tag, output), f) in plans.iter().zip(&fused) {
        fusion::write_fused(sink(output.as_deref())?, tag, f)?.finish()?;
    }
    let topics = fused.first().map_or(0, |f| f.topics.len());
    eprintln!("fused {} runs over {topics} topics", runs.len());
    Ok(())
}

/// One (parameters, tag, output) per method, checked against the run
/// count; flags that no chosen method reads are refused.
fn plan(a: &FuseArgs) -> Result<Vec<(FuseParams, String, Option<PathBuf>)>> {
    let mut methods: Vec<Method> = Vec::new();
    for m in &a.method {
        if !methods.contains(&m.method()) {
            methods.push(m.method());
        }
    }
    for (given, method, flag) in [
        (a.rrf_k.is_some(), Method::Rrf, "--rrf-k"),
        (a.alpha.is_some(), Method::Interpolation, "--alpha"),
        (!a.weights.is_empty(), Method::Weighted, "--weights"),
    ] {
        anyhow::ensure!(
            !given || methods.contains(&method),
            "{flag} applies only to --method {}",
            method.name()
        );
    }
    anyhow::ensure!(
        methods.len() == 1 || a.output_dir.is_some(),
        "{} methods requested: give --output-dir DIR for their files",
        methods.len()
    );
    let defaults = FuseParams::default();
    let mut plans = Vec::with_capacity(methods.len());
    for method in methods.iter().copied() {
        let params = FuseParams {
            method,
            rrf_k: a.rrf_k.unwrap_or(defaults.rrf_k),
            alpha: a.alpha.unwrap_or(defaults.alpha),
            weights: a.weights.clone(),
            min_max: a.min_max,
            hits: a.hits,
        };
        fusion::check_params(&params, a.runs.len())?;
        let tag = if methods.len() == 1 {
            a.tag.clone()
        } else {
            format!("{}_{}", a.tag, method.name())
        };
        sieve_searcher::run::check_field("tag", &tag)?;
        let output = match &a.output_dir {
            Some(dir) => Some(dir.join(format!("{tag}.run"))),
            None => a.output.clone(),
        };
        plans.push((params, tag, output));
    }
    Ok(plans)
}

/// Tells on stderr how many of all the runs' topics each run lacks (such
/// a topic contributes nothing from that run).
fn report_missing(runs: &[fusion::FusionRun]) {
    let (all, lacking) = fusion::missing_topics(runs);
    for (run, missing) in runs.iter().zip(lacking) {
        if missing > 0 {
            eprintln!(
                "note: {} lacks {missing} of the {all} topics: it contributes nothing to them",
                run.path.display()
            );
        }
    }
}
