export const Settings = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Settings</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
