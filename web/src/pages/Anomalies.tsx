export const Anomalies = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Anomalies</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
