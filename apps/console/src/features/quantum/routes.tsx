import { ComingSoon, QUANTUM_FEATURES } from './components/coming-soon';

/** The quantum route group: /quantum and the /comming-soon/9 menu target (the spec's spelling). */
export function QuantumPage() {
  return (
    <ComingSoon
      title="量子计算云平台即将上线"
      lead="平台将统一接入量子计算资源，与现有的 AI 计算、科学计算算力协同调度，为科研与产业用户提供量子线路模拟、量子真机任务提交与结果分析等服务。"
      features={QUANTUM_FEATURES}
    />
  );
}

export function ComingSoonPage() {
  return (
    <ComingSoon
      title="量子算法与应用即将开放"
      lead="面向组合优化、量子化学与量子机器学习的算法模板与应用案例正在建设中，开放后可一键提交到量子模拟器或量子真机运行。"
      features={QUANTUM_FEATURES}
    />
  );
}
